/** `TaxUnit` → `tax_unit`: how entity labels appear in ids and keys. */
export function snakeCase(label: string): string {
  return label.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z])([A-Z][a-z])/g, '$1_$2').toLowerCase();
}

/**
 * A jurisdiction, the name of its folder under an encoding root and the prefix of its legal ids
 * (`us-co:regulations/…`): a two-letter country or region code, then any number of `-`-separated
 * lower-case alphanumeric parts: `us`, `us-co`, `uk-bath-and-north-east-somerset`.
 */
export const JURISDICTION = '[a-z]{2}(?:-[a-z0-9]+)*';

const JURISDICTION_NAME = new RegExp(`^${JURISDICTION}$`);

export function isJurisdiction(name: string): boolean {
  return JURISDICTION_NAME.test(name);
}

/** The content roots the reference test harness reads under a jurisdiction (its "atomic roots"). */
export const CONTENT_ROOTS = ['statutes', 'regulations', 'policies', 'legislation'] as const;

/** Program specs live in a folder of this name: beside the jurisdictions, or inside one. */
export const PROGRAMS_FOLDER = 'programs';

/** A root's snapshot manifest (source, branch, commit), read for the root's provenance. */
export const SNAPSHOT_FILE = 'SNAPSHOT.yaml';
