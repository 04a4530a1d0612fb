// Program ids: the `{program_id}` of `/v1/runtime/packages/{jurisdiction}/{program_id}`. Clients
// put them in URL paths and refuse anything but a slug, so an id is one readable path segment,
// unique within its jurisdiction. docs/compiled-output.md documents the derivation rule.

export const PROGRAM_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const isProgramId = (id: string): boolean => PROGRAM_ID_PATTERN.test(id);

/** A segment that says little alone: a code such as `ch01`, `ch99c` or `part2`. */
const isCode = (segment: string) => /^[a-z]{0,4}\d+[a-z]?$/i.test(segment);

/** The state (or other sub-national) part of a jurisdiction: `us-co` → `co`; national `us` → none. */
function localPart(jurisdiction: string): string | undefined {
  const dash = jurisdiction.indexOf('-');
  return dash > 0 ? jurisdiction.slice(dash + 1) : undefined;
}

const slugify = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[^a-z0-9]+|-+$/g, '');

/**
 * The id of a program at `programPath` (a spec's `program:` after the jurisdiction, or a
 * composition module's path) in `jurisdiction`:
 *  1. its last path segment, joined to the segment above it when the last says little alone: a
 *     code (`us-tariff-schedule/ch01` → `us-tariff-schedule-ch01`), or the file name of a
 *     composition module, which names a step of the program its folder names
 *     (`policies/usda/csfp/eligibility_pipeline` → `csfp-eligibility_pipeline`);
 *  2. prefixed by the state of a sub-national jurisdiction unless it already starts with it
 *     (`us-co` + `snap` → `co-snap`; `us` + `payroll/oasdi-wage-tax` → `oasdi-wage-tax`);
 *  3. lower-cased, with any other character run replaced by `-`.
 * The result may be longer than a slug allows; the caller reports that (with a way out: `id:`).
 */
export function deriveProgramId(jurisdiction: string, programPath: string, options: { composition?: boolean } = {}): string {
  const segments = programPath.split('/').filter(Boolean);
  const last = segments[segments.length - 1] ?? '';
  const parent = [...segments.slice(0, -1)].reverse().find((s) => s !== last);
  const name = parent && (options.composition || isCode(last)) ? `${parent}-${last}` : last;
  const local = localPart(jurisdiction);
  const slug = slugify(name);
  return local && !slug.startsWith(`${slugify(local)}-`) ? `${slugify(local)}-${slug}` : slug;
}

/** Why `id` is not a usable program id, or undefined when it is. */
export function programIdProblem(id: string): string | undefined {
  if (isProgramId(id)) return undefined;
  if (id.length > 64) return `program id \`${id}\` is ${id.length} characters long (at most 64)`;
  return `program id \`${id}\` is not a URL slug (${PROGRAM_ID_PATTERN.source}: lower-case letters, digits, \`_\` and \`-\`)`;
}
