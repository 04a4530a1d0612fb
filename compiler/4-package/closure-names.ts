import type { ParsedModule, RuleDecl } from '../1-parse/module.js';
import { classify } from '../2-resolve/namespace.js';

// Name resolution over a closure's declarations, without compiling it: what the rule index and
// the on-demand graph use (declared structure, tolerant of modules that do not compile).

export interface DeclaredSymbol {
  id: string;
  kind: 'derived' | 'parameter' | 'relation';
  module: ParsedModule;
  rule: RuleDecl;
}

export function declaredId(mod: ParsedModule, rule: RuleDecl): string {
  return rule.kind === 'data_relation' || rule.kind === 'derived_relation' ? `${mod.target}#relation.${rule.name}` : `${mod.target}#${rule.name}`;
}

/** Name → declaration over a closure in merge order (a later declaration wins, as for parameters). */
export function closureSymbols(closure: ParsedModule[]): Map<string, DeclaredSymbol> {
  const names = new Map<string, DeclaredSymbol>();
  for (const mod of closure) {
    for (const rule of mod.rules) {
      const cls = classify(rule);
      if (cls === 'source_relation') continue;
      const kind = cls === 'relation' ? 'relation' : cls === 'derived' ? 'derived' : 'parameter';
      names.set(rule.name, { id: declaredId(mod, rule), kind, module: mod, rule });
    }
  }
  return names;
}
