// The formula language's syntax tree. `pos` is the offset in the formula text of the token
// that starts the node (for binary nodes, the operator), used to point at errors; each arm of an
// `if` (its `if` or `elif`, and its `else`) and of a `match` (its pattern) has its own, so
// coverage can point at the arm a case never took.

export type BinaryOp = '+' | '-' | '*' | '/' | '<' | '<=' | '>' | '>=' | '==' | '!=' | 'and' | 'or';

export type Expr =
  | { t: 'num'; value: string; pos: number }
  | { t: 'str'; value: string; pos: number }
  | { t: 'bool'; value: boolean; pos: number }
  | { t: 'name'; name: string; pos: number }
  | { t: 'unary'; op: '-' | 'not'; arg: Expr; pos: number }
  | { t: 'binary'; op: BinaryOp; left: Expr; right: Expr; pos: number }
  | { t: 'if'; branches: { cond: Expr; then: Expr; pos: number }[]; otherwise: Expr; elsePos: number; pos: number }
  | { t: 'match'; subject: Expr; arms: { pattern: Expr | null; result: Expr; pos: number }[]; pos: number }
  | { t: 'call'; callee: string; args: Expr[]; pos: number }
  | { t: 'field'; target: Expr; field: string; pos: number }
  | { t: 'index'; target: Expr; index: Expr; pos: number };

/** A bare literal (what makes a no-entity rule a scalar parameter). */
export function isLiteral(e: Expr): boolean {
  return e.t === 'num' || e.t === 'str' || e.t === 'bool';
}

/** Every name a formula refers to (rules, parameters, inputs, relations), in order of appearance. */
export function referencedNames(e: Expr, out: Set<string> = new Set()): Set<string> {
  switch (e.t) {
    case 'name':
      out.add(e.name);
      break;
    case 'unary':
      referencedNames(e.arg, out);
      break;
    case 'binary':
      referencedNames(e.left, out);
      referencedNames(e.right, out);
      break;
    case 'if':
      for (const b of e.branches) referencedNames(b.then, referencedNames(b.cond, out));
      referencedNames(e.otherwise, out);
      break;
    case 'match':
      referencedNames(e.subject, out);
      for (const arm of e.arms) {
        if (arm.pattern) referencedNames(arm.pattern, out);
        referencedNames(arm.result, out);
      }
      break;
    case 'call':
      for (const a of e.args) referencedNames(a, out);
      break;
    case 'field':
      referencedNames(e.target, out);
      out.add(e.field);
      break;
    case 'index':
      referencedNames(e.target, out);
      referencedNames(e.index, out);
      break;
  }
  return out;
}
