// One error type for everything an author can get wrong in an encoding or a test file.
// A diagnostic names where the problem is; the position is recovered lazily (see 1-parse/locate.ts)
// because most files never need one.

export type DiagnosticCode =
  | 'yaml_syntax'
  | 'invalid_module'
  | 'invalid_rule'
  | 'unknown_rule_kind'
  | 'formula_syntax'
  | 'unknown_function'
  | 'wrong_arity'
  | 'position_mismatch'
  | 'invalid_reference'
  | 'duplicate_rule'
  | 'unresolved_import'
  | 'import_cycle'
  | 'dependency_cycle'
  | 'invalid_binding'
  | 'invalid_test_file'
  | 'invalid_case'
  | 'evaluation_error';

/** Where in a YAML document a problem sits: a path of keys and indexes, plus an offset inside a scalar. */
export interface YamlLocation {
  file: string;
  path: (string | number)[];
  /** Offset inside the scalar's value (e.g. a formula), when the problem is inside it. */
  offset?: number;
  /** The scalar's value, needed to map `offset` back to the source. */
  scalar?: string;
}

export interface Position {
  file: string;
  line: number; // 1-based
  column: number; // 1-based
  /** The source line, for an excerpt with a caret. */
  lineText?: string;
}

export class RuleSpecError extends Error {
  readonly code: DiagnosticCode;
  location?: YamlLocation;
  position?: Position;
  /** Further problems found in the same pass (e.g. every bad formula of a module). */
  others: RuleSpecError[] = [];

  constructor(code: DiagnosticCode, message: string, where?: { location?: YamlLocation; position?: Position }) {
    super(message);
    this.name = 'RuleSpecError';
    this.code = code;
    this.location = where?.location;
    this.position = where?.position;
  }
}

/** `file:line:col: message` followed by the offending line and a caret under the column. */
export function formatPosition(message: string, position: Position | undefined, file?: string): string {
  if (!position) return file ? `${file}: ${message}` : message;
  const head = `${position.file}:${position.line}:${position.column}: ${message}`;
  if (position.lineText === undefined) return head;
  const gutter = String(position.line);
  const text = position.lineText.replace(/\t/g, ' ');
  const caret = ' '.repeat(gutter.length) + ' | ' + ' '.repeat(Math.max(0, position.column - 1)) + '^';
  return `${head}\n${gutter} | ${text}\n${caret}`;
}

export function positionAt(file: string, text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  let lineEnd = text.indexOf('\n', lineStart);
  if (lineEnd < 0) lineEnd = text.length;
  return { file, line, column: offset - lineStart + 1, lineText: text.slice(lineStart, lineEnd).replace(/\r$/, '') };
}
