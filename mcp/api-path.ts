// Paths of the API built from tool arguments. An argument is text an agent (or a prompt
// injection in a rule's text) chose: `../admin/keys` as a rule id would make fetch normalise
// `/v1/rules/../admin/keys` to `/v1/admin/keys`. So every path parameter is validated and
// percent-encoded segment by segment, and the finished path must still be the tool's own
// endpoint; anything else is refused before a request is sent.

export class PathArgumentError extends Error {
  constructor(
    readonly argument: string,
    readonly reason: string,
  ) {
    super(`${argument}: ${reason}; the request was not sent`);
    this.name = 'PathArgumentError';
  }
}

/** Percent-decoding, undone as often as it changes the text, to see what a server might read. */
function fullyDecoded(text: string): string {
  let current = text;
  for (let i = 0; i < 5; i++) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return current;
    }
    if (next === current) return current;
    current = next;
  }
  return current;
}

/**
 * One path parameter as encoded segments. `slashes`: the value may hold `/` (rule ids such as
 * `us:statutes/7/2017/a#snap_allotment`, citation paths), each part becoming one segment.
 */
export function encodeParameter(argument: string, value: string, options: { slashes?: boolean } = {}): string {
  const refuse = (reason: string): never => {
    throw new PathArgumentError(argument, reason);
  };
  if (value.length === 0) refuse('must not be empty');
  if (/[\u0000-\u001f\u007f]/.test(value)) refuse('must not contain control characters');
  const decoded = fullyDecoded(value);
  if (decoded.includes('\\')) refuse('must not contain a backslash');
  if (!options.slashes && decoded.includes('/')) refuse(`must be one path segment (no \`/\`, encoded or not), got ${JSON.stringify(value)}`);
  if (options.slashes && decoded !== value && decoded.includes('/')) refuse(`must not contain an encoded \`/\`, got ${JSON.stringify(value)}`);
  const segments = value.split('/');
  for (const segment of segments) {
    const plain = fullyDecoded(segment);
    if (plain === '') refuse(`must not contain an empty segment (a leading, trailing or doubled \`/\`), got ${JSON.stringify(value)}`);
    if (plain === '.' || plain === '..') refuse(`must not contain a \`${plain}\` segment, encoded or not (it would leave the tool's endpoint), got ${JSON.stringify(value)}`);
  }
  return segments.map(encodeURIComponent).join('/');
}

/**
 * `/v1/rules/{rule_id}/sources` and the like, with each `{name}` replaced by its encoded value;
 * the result is checked to resolve under the template's fixed prefix with the segments it
 * should have, so nothing can step outside the tool's endpoint.
 */
export function apiPath(template: string, values: Record<string, string>, slashed: readonly string[] = []): string {
  const path = template.replace(/\{([a-z_]+)\}/g, (_m, name: string) => encodeParameter(name, values[name] ?? '', { slashes: slashed.includes(name) }));
  const resolved = new URL(path, 'http://api.invalid').pathname;
  const prefix = template.slice(0, template.indexOf('{'));
  if (resolved !== path || !resolved.startsWith(prefix)) throw new PathArgumentError(Object.keys(values).join(', '), `would address ${resolved} instead of ${template}`);
  return path;
}
