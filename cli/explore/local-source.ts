import { DEFAULT_CALCULATE_TIMEOUT_MS, runCalculation } from '../../server/calculation.js';
import { ApiError } from '../../server/errors.js';
import { packageDetail, packageSummary } from '../../server/catalog/views.js';
import type { Catalog } from '../../server/catalog/catalog.js';
import { type ExplorerSource, SEARCH_LIMIT, searchQuery, SourceError } from './source.js';

// The explorer over a compiled output tree in this process: the daemon's own catalogue, search
// index, package views and calculation, so every answer is the one the API would give.

export function localSource(catalog: Catalog, origin: string): ExplorerSource {
  const loaded = (jurisdiction: string, programId: string) => {
    const pkg = catalog.package(jurisdiction, programId);
    if (!pkg) throw new SourceError('not_found', `no runtime package ${jurisdiction}/${programId}`);
    return pkg;
  };
  return {
    origin,
    packages: async () => catalog.packages.map((p) => packageSummary(p, catalog)),
    programs: async () => catalog.programs,
    packageDetail: async (jurisdiction, programId) => packageDetail(loaded(jurisdiction, programId).pkg, catalog),
    async search(query) {
      const q = searchQuery(query);
      return q ? catalog.search.search(q, {}, SEARCH_LIMIT) : [];
    },
    async rule(idOrPath) {
      const entry = catalog.rule(idOrPath);
      if (!entry) throw new SourceError('not_found', `no rule \`${idOrPath}\``);
      return { rule: entry.rule, sources: entry.sources };
    },
    async graph(jurisdiction, programId) {
      const graph = catalog.graph(jurisdiction, programId);
      if (!graph) throw new SourceError('not_found', `no compiled graph for ${jurisdiction}/${programId}`);
      return graph;
    },
    async calculate(request) {
      try {
        return runCalculation(catalog, request, DEFAULT_CALCULATE_TIMEOUT_MS);
      } catch (err) {
        if (err instanceof ApiError) throw new SourceError(err.code, err.message);
        throw err;
      }
    },
  };
}
