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

/** A module's own declarations by name (a later one wins), read once per parsed module. */
const own = new WeakMap<ParsedModule, Map<string, DeclaredSymbol>>();
function ownSymbols(mod: ParsedModule): Map<string, DeclaredSymbol> {
  let names = own.get(mod);
  if (!names) {
    names = new Map();
    for (const rule of mod.rules) {
      const cls = classify(rule);
      if (cls === 'source_relation') continue;
      const kind = cls === 'relation' ? 'relation' : cls === 'derived' ? 'derived' : 'parameter';
      names.set(rule.name, { id: declaredId(mod, rule), kind, module: mod, rule });
    }
    own.set(mod, names);
  }
  return names;
}

/** Name → declaration over a closure in merge order (a later declaration wins, as for parameters). */
export function closureSymbols(closure: ParsedModule[]): Map<string, DeclaredSymbol> {
  const names = new Map<string, DeclaredSymbol>();
  for (const mod of closure) for (const [name, symbol] of ownSymbols(mod)) names.set(name, symbol);
  return names;
}

/** The declarations `closureSymbols` would give for these names alone: the last module of the
 *  closure that declares each. Cheaper when a few names are wanted from a large closure. */
export function resolveInClosure(closure: ParsedModule[], wanted: Iterable<string>): Map<string, DeclaredSymbol> {
  const missing = new Set(wanted);
  const found = new Map<string, DeclaredSymbol>();
  for (let i = closure.length - 1; i >= 0 && missing.size; i--) {
    const names = ownSymbols(closure[i]);
    for (const name of missing) {
      const symbol = names.get(name);
      if (symbol) {
        found.set(name, symbol);
        missing.delete(name);
      }
    }
  }
  return found;
}
