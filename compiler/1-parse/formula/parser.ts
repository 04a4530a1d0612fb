import type { BinaryOp, Expr } from './ast.js';
import { type Token, lex, LexError } from './lexer.js';

// Recursive-descent parser. Precedence, loosest first:
//   match / if  →  or  →  and  →  one comparison  →  + -  →  * /  →  unary - not  →  postfix
// `if` and `match` extend as far right as possible; a comparison may not be chained.

export class FormulaSyntaxError extends Error {
  constructor(message: string, readonly pos: number) {
    super(message);
  }
}

const COMPARISONS = new Set(['<', '<=', '>', '>=', '==', '!=']);

/**
 * How deeply a formula may nest: parentheses, calls, `if` and `match` inside one another, and
 * operators in a chain (`a + b + c` is two levels). The deepest formula of the US corpus has 59;
 * the bound keeps every recursive walk of the tree (this parser, lowering, both engines) far
 * from the end of the stack, so a pathological formula is a syntax error, not a crash.
 */
export const MAX_FORMULA_DEPTH = 200;
const TOO_DEEP = `the formula nests more than ${MAX_FORMULA_DEPTH} levels deep (parentheses, calls, conditions and chained operators); split it into named rules`;

/** A node at the bound with nodes below it, found without recursion (the tree may be a long chain). */
function tooDeep(root: Expr): Expr | undefined {
  const stack: [Expr, number][] = [[root, 1]];
  while (stack.length) {
    const [e, depth] = stack.pop()!;
    const below = children(e);
    if (depth === MAX_FORMULA_DEPTH && below.length) return e;
    for (const child of below) stack.push([child, depth + 1]);
  }
  return undefined;
}

function children(e: Expr): Expr[] {
  switch (e.t) {
    case 'unary':
      return [e.arg];
    case 'binary':
      return [e.left, e.right];
    case 'if':
      return [...e.branches.flatMap((b) => [b.cond, b.then]), e.otherwise];
    case 'match':
      return [e.subject, ...e.arms.flatMap((a) => (a.pattern ? [a.pattern, a.result] : [a.result]))];
    case 'call':
      return e.args;
    case 'field':
      return [e.target];
    case 'index':
      return [e.target, e.index];
    default:
      return [];
  }
}

export function parseFormula(src: string): Expr {
  let tokens: Token[];
  try {
    tokens = lex(src);
  } catch (err) {
    if (err instanceof LexError) throw new FormulaSyntaxError(err.message, err.pos);
    throw err;
  }
  return new Parser(tokens).parseWhole();
}

function describe(tok: Token): string {
  if (tok.type === 'eof') return 'end of formula';
  if (tok.type === 'str') return 'string literal';
  return `'${tok.text}'`;
}

class Parser {
  private i = 0;
  /** Expressions being parsed inside one another (parentheses nest without adding a node). */
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(k = 0): Token {
    return this.tokens[Math.min(this.i + k, this.tokens.length - 1)];
  }
  private next(): Token {
    return this.tokens[this.i++];
  }
  private isOp(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t.type === 'op' && t.text === text;
  }
  private isKeyword(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t.type === 'keyword' && t.text === text;
  }
  private fail(message: string, tok = this.peek()): never {
    throw new FormulaSyntaxError(message, tok.pos);
  }
  private expectOp(text: string, context: string): Token {
    if (!this.isOp(text)) this.fail(`expected '${text}' ${context}, found ${describe(this.peek())}`);
    return this.next();
  }

  parseWhole(): Expr {
    if (this.peek().type === 'eof') this.fail('empty formula');
    const e = this.parseExpr();
    const deep = tooDeep(e);
    if (deep) throw new FormulaSyntaxError(TOO_DEEP, deep.pos);
    const rest = this.peek();
    if (rest.type !== 'eof') {
      if (rest.type === 'op' && COMPARISONS.has(rest.text)) this.fail('comparisons cannot be chained; combine them with `and`');
      this.fail(`unexpected ${describe(rest)} after a complete expression`);
    }
    return e;
  }

  /** One level deeper (refused past the bound, at `tok`). */
  private nested<T>(parse: () => T, tok = this.peek()): T {
    if (++this.depth > MAX_FORMULA_DEPTH) this.fail(TOO_DEEP, tok);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private parseExpr(): Expr {
    return this.nested(() => this.parseInnerExpr());
  }

  private parseInnerExpr(): Expr {
    if (this.isKeyword('match')) return this.parseMatch();
    if (this.isKeyword('if')) return this.parseIf();
    if (this.peek().type === 'ident' && this.isOp('=', 1)) this.fail('assignments (`name = ...`) are not part of the formula language');
    return this.parseOr();
  }

  private parseIf(): Expr {
    const pos = this.next().pos;
    const branches: { cond: Expr; then: Expr; pos: number }[] = [];
    const cond = this.parseOr();
    this.expectOp(':', 'after the `if` condition');
    branches.push({ cond, then: this.parseExpr(), pos });
    while (this.isKeyword('elif')) {
      const at = this.next().pos;
      const c = this.parseOr();
      this.expectOp(':', 'after the `elif` condition');
      branches.push({ cond: c, then: this.parseExpr(), pos: at });
    }
    if (!this.isKeyword('else')) this.fail(`expected 'elif' or 'else' (an \`if\` needs an \`else\`), found ${describe(this.peek())}`);
    const elsePos = this.next().pos;
    this.expectOp(':', 'after `else`');
    return { t: 'if', branches, otherwise: this.parseExpr(), elsePos, pos };
  }

  private isPatternStart(k = 0): boolean {
    const t = this.peek(k);
    const literal =
      t.type === 'int' || t.type === 'float' || t.type === 'str' || t.type === 'ident' ||
      (t.type === 'keyword' && ['true', 'True', 'false', 'False'].includes(t.text));
    return literal && this.isOp('=>', k + 1);
  }

  private parseMatch(): Expr {
    const pos = this.next().pos;
    const subject = this.parseOr();
    this.expectOp(':', 'after the `match` subject');
    const arms: { pattern: Expr | null; result: Expr; pos: number }[] = [];
    if (!this.isPatternStart()) this.fail(`expected a match arm (\`pattern => result\`), found ${describe(this.peek())}`);
    while (this.isPatternStart()) {
      const tok = this.next();
      if (arms.length > 0 && arms[arms.length - 1].pattern === null) this.fail('the wildcard arm `_` must be the last arm', tok);
      this.next(); // =>
      const pattern: Expr | null = tok.type === 'ident' && tok.text === '_' ? null : this.literalOrName(tok);
      arms.push({ pattern, result: this.parseExpr(), pos: tok.pos });
    }
    return { t: 'match', subject, arms, pos };
  }

  private literalOrName(tok: Token): Expr {
    switch (tok.type) {
      case 'int':
      case 'float':
        return { t: 'num', value: tok.text, pos: tok.pos };
      case 'str':
        return { t: 'str', value: tok.text, pos: tok.pos };
      case 'keyword':
        return { t: 'bool', value: tok.text === 'true' || tok.text === 'True', pos: tok.pos };
      default:
        return { t: 'name', name: tok.text, pos: tok.pos };
    }
  }

  private parseOr(): Expr {
    let left = this.parseAnd();
    while (this.isKeyword('or')) {
      const pos = this.next().pos;
      left = { t: 'binary', op: 'or', left, right: this.parseAnd(), pos };
    }
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseCmp();
    while (this.isKeyword('and')) {
      const pos = this.next().pos;
      left = { t: 'binary', op: 'and', left, right: this.parseCmp(), pos };
    }
    return left;
  }

  private parseCmp(): Expr {
    const left = this.parseAdd();
    const t = this.peek();
    if (t.type === 'op' && COMPARISONS.has(t.text)) {
      this.next();
      return { t: 'binary', op: t.text as BinaryOp, left, right: this.parseAdd(), pos: t.pos };
    }
    return left;
  }

  private parseAdd(): Expr {
    let left = this.parseMul();
    while (this.isOp('+') || this.isOp('-')) {
      const t = this.next();
      left = { t: 'binary', op: t.text as BinaryOp, left, right: this.parseMul(), pos: t.pos };
    }
    return left;
  }

  private parseMul(): Expr {
    let left = this.parseUnary();
    while (this.isOp('*') || this.isOp('/')) {
      const t = this.next();
      left = { t: 'binary', op: t.text as BinaryOp, left, right: this.parseUnary(), pos: t.pos };
    }
    return left;
  }

  private parseUnary(): Expr {
    if (this.isOp('-') || this.isKeyword('not')) {
      const t = this.next();
      return { t: 'unary', op: t.text as '-' | 'not', arg: this.nested(() => this.parseUnary(), t), pos: t.pos };
    }
    return this.parsePostfix();
  }

  private parsePostfix(): Expr {
    const parenthesized = this.isOp('(');
    let e = this.parsePrimary();
    for (;;) {
      if (this.isOp('(')) {
        const open = this.next();
        if (e.t !== 'name' || parenthesized) this.fail('only a function name can be called', open);
        const args: Expr[] = [];
        if (!this.isOp(')')) {
          for (;;) {
            args.push(this.parseExpr());
            if (this.isOp(',')) {
              this.next();
              if (this.isOp(')')) this.fail('trailing comma in argument list');
              continue;
            }
            break;
          }
        }
        this.expectOp(')', 'to close the argument list');
        e = { t: 'call', callee: e.name, args, pos: e.pos };
      } else if (this.isOp('.')) {
        const dot = this.next();
        const field = this.peek();
        if (field.type !== 'ident') this.fail(`expected a field name after '.', found ${describe(field)}`);
        this.next();
        e = { t: 'field', target: e, field: field.text, pos: dot.pos };
      } else if (this.isOp('[')) {
        const open = this.next();
        const index = this.parseExpr();
        this.expectOp(']', 'to close the index');
        e = { t: 'index', target: e, index, pos: open.pos };
      } else {
        return e;
      }
    }
  }

  private parsePrimary(): Expr {
    const t = this.peek();
    switch (t.type) {
      case 'int':
      case 'float':
        this.next();
        return { t: 'num', value: t.text, pos: t.pos };
      case 'str':
        this.next();
        return { t: 'str', value: t.text, pos: t.pos };
      case 'ident':
        this.next();
        return { t: 'name', name: t.text, pos: t.pos };
      case 'date':
        this.fail(`date literals are not supported (${t.text}); pass dates as inputs`);
      // falls through: fail() never returns
      case 'keyword':
        if (['true', 'True', 'false', 'False'].includes(t.text)) {
          this.next();
          return { t: 'bool', value: t.text === 'true' || t.text === 'True', pos: t.pos };
        }
        if (t.text === 'if' || t.text === 'match') {
          this.fail(`\`${t.text}\` cannot appear inside an operator expression; wrap it in parentheses`);
        }
        this.fail(`unexpected keyword '${t.text}'${['from', 'to', 'entity', 'amend'].includes(t.text) ? ' (reserved word; it cannot name a rule or input)' : ''}`);
      // falls through: fail() never returns
      case 'op':
        if (t.text === '(') {
          this.next();
          const e = this.parseExpr();
          this.expectOp(')', 'to close the parenthesis');
          return e;
        }
        this.fail(`unexpected ${describe(t)}`);
      // falls through: fail() never returns
      default:
        this.fail(`unexpected ${describe(t)}`);
    }
  }
}
