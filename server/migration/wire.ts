// The external household engine's wire format (PolicyEngine-US situations): entity groups of
// entities whose variables map period keys to values; `null` asks for a value to be computed.

export const ENTITY_GROUPS = ['people', 'tax_units', 'spm_units', 'families', 'households', 'marital_units'] as const;
export type EntityGroup = (typeof ENTITY_GROUPS)[number];
export type WireHousehold = Partial<Record<EntityGroup, Record<string, Record<string, unknown>>>>;

/** Keys of an entity that describe structure, not a variable. */
export const STRUCTURAL_KEYS = new Set(['members']);

export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A requested period: a bare year (answered as the monthly value times 12) or one month. */
export interface WirePeriod {
  key: string;
  /** The month that is calculated (`YYYY-01` for a bare year). */
  month: string;
  annual: boolean;
}

export function periodOf(key: string): WirePeriod | undefined {
  if (/^\d{4}$/.test(key)) return { key, month: `${key}-01`, annual: true };
  if (/^\d{4}-(0[1-9]|1[0-2])$/.test(key)) return { key, month: key, annual: false };
  return undefined;
}

/**
 * A variable's value in `month`: the month's own key, else its year's key (a yearly amount,
 * which amount readers divide by 12, as PolicyEngine-US does when a monthly formula reads a
 * yearly variable). `undefined` when neither is given or the value is null (to be computed).
 */
export function valueIn(values: unknown, month: string): { value: unknown; yearly: boolean } | undefined {
  if (!isObj(values)) return values === null || values === undefined ? undefined : { value: values, yearly: false };
  const monthly = values[month];
  if (monthly !== undefined && monthly !== null) return { value: monthly, yearly: false };
  const yearly = values[month.slice(0, 4)];
  if (yearly !== undefined && yearly !== null) return { value: yearly, yearly: true };
  return undefined;
}

/** The member ids of an entity (`members`), or undefined when it lists none. */
export function membersOf(entity: Record<string, unknown>): string[] | undefined {
  return Array.isArray(entity.members) ? entity.members.map(String) : undefined;
}
