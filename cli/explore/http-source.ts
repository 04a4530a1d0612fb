import { apiPath } from '../../mcp/api-path.js';
import type { CalculateResponse, ExplorerSource, PackageDetail, PackageSummary, ProgramGraph, ProgramSummary, RuleDetail, RuleSummary, SourceReference } from './source.js';
import { SEARCH_LIMIT, searchQuery, SourceError } from './source.js';

// The explorer over a running daemon: the same questions as /v1 requests with the key, each
// answer unwrapped from its envelope; an error envelope or a network failure becomes a SourceError.

const TIMEOUT_MS = 30_000;

export function httpSource(url: string, key: string): ExplorerSource {
  const base = url.replace(/\/+$/, '');
  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: { 'x-api-key': key, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : (err as Error).message;
      throw new SourceError('unreachable', `cannot reach ${base}: ${cause}`);
    }
    const envelope = (await res.json().catch(() => null)) as { data?: T; error?: { code: string; message: string } } | null;
    if (!res.ok || !envelope || envelope.data === undefined) {
      const error = envelope?.error;
      throw new SourceError(error?.code ?? `http_${res.status}`, `${method} ${path} answered ${res.status}${error ? ` ${error.code}: ${error.message}` : ''}`);
    }
    return envelope.data;
  }
  const pkgPath = (jurisdiction: string, programId: string, rest = '') =>
    apiPath(`/v1/runtime/packages/{jurisdiction}/{program_id}${rest}`, { jurisdiction, program_id: programId });
  return {
    origin: base,
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
