// The formula language's syntax tree. `pos` is the offset in the formula text of the token
// that starts the node (for binary nodes, the operator), used to point at errors.

export type BinaryOp = '+' | '-' | '*' | '/' | '<' | '<=' | '>' | '>=' | '==' | '!=' | 'and' | 'or';

export type Expr =
  | { t: 'num'; value: string; pos: number }
  | { t: 'str'; value: string; pos: number }
  | { t: 'bool'; value: boolean; pos: number }
  | { t: 'name'; name: string; pos: number }
  | { t: 'unary'; op: '-' | 'not'; arg: Expr; pos: number }
  | { t: 'binary'; op: BinaryOp; left: Expr; right: Expr; pos: number }
  | { t: 'if'; branches: { cond: Expr; then: Expr }[]; otherwise: Expr; pos: number }
  | { t: 'match'; subject: Expr; arms: { pattern: Expr | null; result: Expr }[]; pos: number }
  | { t: 'call'; callee: string; args: Expr[]; pos: number }
  | { t: 'field'; target: Expr; field: string; pos: number }
  | { t: 'index'; target: Expr; index: Expr; pos: number };

/** A bare literal (what makes a no-entity rule a scalar parameter). */
export function isLiteral(e: Expr): boolean {
  return e.t === 'num' || e.t === 'str' || e.t === 'bool';
}
