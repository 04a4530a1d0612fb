import type { RuntimePackage } from '../../compiler/4-package/package-types.js';
import type { ManifestPackage } from '../../compiler/5-emit/manifest.js';
import type { Catalog } from './catalog.js';

// What the API shows of the catalogue: package summaries and details (the discovery routes, the
// OpenAPI examples, the explorer's in-process source) and where the encodings came from.

/** The encoding repositories served, each at its commit when known. */
export function repositorySource(catalog: Catalog): string {
  return catalog.manifest.roots.map((r) => `${r.repo}${r.commit ? `@${r.commit.slice(0, 12)}` : ''}`).join(', ');
}

export function packageSummary(p: ManifestPackage, catalog: Catalog) {
  return {
    program_id: p.program_id,
    jurisdiction: p.jurisdiction,
    runtime_id: p.runtime_id,
    mode: catalog.mode,
    status: p.status,
    default_outputs: p.default_outputs,
    output_count: p.output_count,
    entity_count: p.entity_count,
    input_count: p.input_count,
  };
}

/** RuntimePackageDetail: the package without what only the engine needs. */
export function packageDetail(pkg: RuntimePackage, catalog: Catalog) {
  const { executable: _executable, rule_info: _ruleInfo, parameter_info: _parameterInfo, source, format_version: _format, main_entity: _main, person_entity: _person, ...detail } = pkg;
  return { ...detail, mode: catalog.mode, source: { kind: source.kind, target: source.target, module_count: source.modules.length } };
}
