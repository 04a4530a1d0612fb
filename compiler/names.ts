/** `TaxUnit` → `tax_unit`: how entity labels appear in ids and keys. */
export function snakeCase(label: string): string {
  return label.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z])([A-Z][a-z])/g, '$1_$2').toLowerCase();
}
