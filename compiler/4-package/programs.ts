import type { BuildFailure, PackageOutline } from '../build.js';
import type { IndexedRule, ProgramSummary } from './rule-index.js';

// The program list: every (jurisdiction, program) that has indexed rules or a package.
//   available — an executable package serves every output the program declares
//   partial   — a package exists, but some outputs are acknowledged incomplete or it has notes
//   planned   — rules are indexed (or a spec exists) but nothing executes yet

export function buildProgramList(rules: IndexedRule[], packages: PackageOutline[], failures: BuildFailure[]): ProgramSummary[] {
  const programs = new Map<string, ProgramSummary>();
  const key = (jurisdiction: string, id: string) => `${jurisdiction}\u0000${id}`;
  const counts = new Map<string, number>();
  for (const { rule } of rules) counts.set(key(rule.jurisdiction, rule.program_id), (counts.get(key(rule.jurisdiction, rule.program_id)) ?? 0) + 1);

  for (const { pkg } of packages) {
    const incomplete = pkg.acknowledged_incomplete.length > 0;
    const reasons = [...(incomplete ? [`outputs acknowledged incomplete by their encoders: ${pkg.acknowledged_incomplete.join(', ')}`] : []), ...pkg.notes];
    programs.set(key(pkg.jurisdiction, pkg.program_id), {
      id: pkg.program_id,
      name: pkg.name,
      jurisdiction: pkg.jurisdiction,
      description: pkg.description,
      rule_count: counts.get(key(pkg.jurisdiction, pkg.program_id)) ?? 0,
      status: reasons.length ? 'partial' : 'available',
      status_reason: reasons.length ? reasons.join('; ') : `executable package ${pkg.runtime_id} serves ${pkg.default_outputs.length} outputs`,
    });
  }
  for (const f of failures) {
    if (!f.program_id || programs.has(key(f.jurisdiction, f.program_id))) continue;
    programs.set(key(f.jurisdiction, f.program_id), {
      id: f.program_id,
      name: `${f.program_id} (${f.jurisdiction})`,
      jurisdiction: f.jurisdiction,
      description: `Program ${f.jurisdiction}/${f.program_id}; its package does not compile yet.`,
      rule_count: counts.get(key(f.jurisdiction, f.program_id)) ?? 0,
      status: 'planned',
      status_reason: `the program does not compile: ${f.error.split('\n')[0]}`,
    });
  }
  for (const [k, count] of counts) {
    if (programs.has(k)) continue;
    const [jurisdiction, id] = k.split('\u0000');
    programs.set(k, {
      id,
      name: `${id} (${jurisdiction})`,
      jurisdiction,
      description: `${count} rules indexed for ${id} in ${jurisdiction}.`,
      rule_count: count,
      status: 'planned',
      status_reason: 'rules are indexed, but no executable package covers them',
    });
  }
  return [...programs.values()].sort((a, b) => (a.jurisdiction + a.id < b.jurisdiction + b.id ? -1 : 1));
}
