// Hand-written lexer for RuleSpec formulas. Whitespace and newlines are insignificant;
// `#` comments and `"""` doc blocks are skipped.

export type TokenType = 'int' | 'float' | 'str' | 'ident' | 'keyword' | 'op' | 'date' | 'eof';

export interface Token {
  type: TokenType;
  text: string; // identifier / keyword / operator text; digits (underscores removed); string contents
  pos: number;
}

export const KEYWORDS = new Set([
  'entity', 'amend', 'from', 'to', 'match', 'if', 'elif', 'else', 'and', 'or', 'not',
  'true', 'True', 'false', 'False',
]);

const TWO_CHAR_OPS = new Set(['=>', '<=', '>=', '==', '!=', '->']);
const ONE_CHAR_OPS = new Set([':', ',', '.', '=', '+', '-', '*', '/', '<', '>', '(', ')', '[', ']']);
const I64_MAX = 9223372036854775807n;

export class LexError extends Error {
  constructor(message: string, readonly pos: number) {
    super(message);
  }
}

const isDigit = (c: string) => c >= '0' && c <= '9';
const isIdentStart = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isIdentPart = (c: string) => isIdentStart(c) || isDigit(c);

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t' };

export function lex(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (src.startsWith('"""', i)) {
      const end = src.indexOf('"""', i + 3);
      if (end < 0) throw new LexError('unterminated """ doc block', i);
      i = end + 3;
      continue;
    }
    if (c === '#') {
      while (i < n && src[i] !== '\n') i++;
      continue;
    }
    const start = i;
    if (isDigit(c)) {
      // DATE: exactly dddd-dd-dd
      if (/^\d{4}-\d{2}-\d{2}(?![0-9])/.test(src.slice(i, i + 11))) {
        tokens.push({ type: 'date', text: src.slice(i, i + 10), pos: start });
        i += 10;
        continue;
      }
      while (i < n && (isDigit(src[i]) || src[i] === '_')) i++;
      let isFloat = false;
      if (src[i] === '.' && i + 1 < n && isDigit(src[i + 1])) {
        isFloat = true;
        i++;
        while (i < n && (isDigit(src[i]) || src[i] === '_')) i++;
      }
      const text = src.slice(start, i).replace(/_/g, '');
      if (!isFloat && BigInt(text) > I64_MAX) throw new LexError(`integer ${text} does not fit in 64 bits`, start);
      tokens.push({ type: isFloat ? 'float' : 'int', text, pos: start });
      continue;
    }
    if (c === '"' || c === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= n) throw new LexError('unterminated string literal', start);
        const ch = src[i];
        if (ch === c) {
          i++;
          break;
        }
        if (ch === '\\' && i + 1 < n) {
          const esc = src[i + 1];
          value += ESCAPES[esc] ?? esc;
          i += 2;
          continue;
        }
        value += ch;
        i++;
      }
      tokens.push({ type: 'str', text: value, pos: start });
      continue;
    }
    if (isIdentStart(c)) {
      while (i < n && isIdentPart(src[i])) i++;
      // PATH: ident immediately followed by '/' and a letter or '_' is one name (e.g. income/size)
      while (src[i] === '/' && i + 1 < n && isIdentStart(src[i + 1])) {
        i++;
        while (i < n && isIdentPart(src[i])) i++;
      }
      const text = src.slice(start, i);
      tokens.push({ type: KEYWORDS.has(text) ? 'keyword' : 'ident', text, pos: start });
      continue;
    }
    const two = src.slice(i, i + 2);
    if (TWO_CHAR_OPS.has(two)) {
      tokens.push({ type: 'op', text: two, pos: start });
      i += 2;
      continue;
    }
    if (ONE_CHAR_OPS.has(c)) {
      tokens.push({ type: 'op', text: c, pos: start });
      i++;
      continue;
    }
    throw new LexError(`unexpected character '${c}'`, start);
  }
  tokens.push({ type: 'eof', text: '', pos: n });
  return tokens;
}
