import { apiPath } from '../../mcp/api-path.js';
import { apiClient, ApiUnreachable, dataOf } from '../api-client.js';
import type { CalculateResponse, ExplorerSource, PackageDetail, PackageSummary, ProgramGraph, ProgramSummary, RuleDetail, RuleSummary, SourceReference } from './source.js';
import { SEARCH_LIMIT, searchQuery, SourceError } from './source.js';

// The explorer over a running daemon: the same questions as /v1 requests with the key, each
// answer unwrapped from its envelope; an error envelope or a network failure becomes a SourceError.

export function httpSource(url: string, key: string): ExplorerSource {
  const api = apiClient(url, key);
  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let answer;
    try {
      answer = await api.call(method, path, body);
    } catch (err) {
      if (err instanceof ApiUnreachable) throw new SourceError('unreachable', err.message);
      throw err;
    }
    const data = dataOf<T>(answer);
    if (data === undefined) throw new SourceError(answer.code ?? `http_${answer.status}`, `${method} ${path} answered ${answer.status}${answer.error ? ` ${answer.error}` : ''}`);
    return data;
  }
  const pkgPath = (jurisdiction: string, programId: string, rest = '') =>
    apiPath(`/v1/runtime/packages/{jurisdiction}/{program_id}${rest}`, { jurisdiction, program_id: programId });
  return {
    origin: api.base,
    packages: async () => (await call<{ packages: PackageSummary[] }>('GET', '/v1/runtime/packages')).packages,
    programs: async () => (await call<{ programs: ProgramSummary[] }>('GET', '/v1/programs')).programs,
    packageDetail: async (jurisdiction, programId) => (await call<{ package: PackageDetail }>('GET', pkgPath(jurisdiction, programId))).package,
    async search(query) {
      const q = searchQuery(query);
      return q ? (await call<{ results: RuleSummary[] }>('POST', '/v1/search', { query: q, limit: SEARCH_LIMIT })).results : [];
    },
    async rule(idOrPath) {
      const path = apiPath('/v1/rules/{rule_id}', { rule_id: idOrPath }, ['rule_id']);
      const { rule } = await call<{ rule: RuleDetail }>('GET', path);
      const { sources } = await call<{ sources: SourceReference[] }>('GET', `${path}/sources`);
      return { rule, sources };
    },
    graph: async (jurisdiction, programId) => (await call<{ graph: ProgramGraph }>('GET', pkgPath(jurisdiction, programId, '/graph'))).graph,
    calculate: (request) => call<CalculateResponse>('POST', '/v1/calculate', request),
  };
}
