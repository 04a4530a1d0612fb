import { readFileSync, writeFileSync } from 'node:fs';
import { makeFolder } from '../../compiler/make-folder.js';
import path from 'node:path';
import { PACKAGE_VERSION } from '../../compiler/project.js';
import { API_VERSION } from '../../server/envelope.js';
import { apiClient, type ApiClient, ApiUnreachable, dataOf } from '../api-client.js';
import { UsageError } from '../exit-codes.js';
import type { Validation } from './compare.js';
import type { ReferenceSet } from '../../server/migration/reference.js';

// A validation run as POST /v1/admin/validation/runs records it, publishing it to a daemon,
// and the previous run of the same kind (to see which of our values moved since).

/** The API's request body limit; a run is trimmed to fit (cases lose their values first). */
const BODY_LIMIT = 262_144;

export interface RunPayload {
  kind: string;
  rows: Record<string, unknown>[];
  cases: Record<string, unknown>[];
  api_version: string;
  base_url: string | null;
  model_versions: Record<string, unknown>;
}

export function runPayload(v: Validation, refs: ReferenceSet, meta: { kind: string; baseUrl: string | null; runtimes: string[] }, warn: (m: string) => void): RunPayload {
  const compared = v.rows.filter((r) => r.status !== 'drift_diff');
  const payload: RunPayload = {
    kind: meta.kind,
    rows: v.rows as unknown as Record<string, unknown>[],
    // values[i] is our value of rows[i].variable (positional, to keep a run within the body limit);
    // a household that differs says whether its counterfactual proves it, and if not, where ours parts
    cases: v.cases.map((c) => ({
      id: c.id,
      set: c.set,
      state: c.state,
      status: c.status,
      ...(c.proof ? { class: c.proof.class, proved_by: c.proof.proved_by } : {}),
      ...(c.proof?.class === 'unexplained' ? { differences: c.differences, first_difference: c.first_difference, tried: c.proof.attributed, diagnosis: c.proof.diagnosis } : {}),
      ...(c.proof?.finding ? { finding: { variable: c.proof.finding.variable, rule: c.proof.finding.rule, source: c.proof.finding.source, ours: c.proof.finding.ours, reference: c.proof.finding.reference, departures: c.proof.finding.departures } } : {}),
      ...(c.error ? { error: c.error } : {}),
      latency_ms: c.latency_ms,
      values: compared.map((r) => c.values[r.variable] ?? null),
    })),
    api_version: API_VERSION,
    base_url: meta.baseUrl,
    // the run record keeps no field of its own for them: the reference engine's departures, with
    // the households each explained and those it was tried on in vain, go with its version
    model_versions: {
      rules: PACKAGE_VERSION,
      runtimes: meta.runtimes,
      reference: { engine: refs.engine, version: refs.engine_version, period: refs.period, departures: v.by_departure },
    },
  };
  if (JSON.stringify(payload).length > BODY_LIMIT - 1024) {
    payload.cases = payload.cases.map(({ values: _values, ...rest }) => rest);
    warn(`the run is too large to publish with every household's values (limit ${BODY_LIMIT} bytes); they are left out, so the next run cannot tell which values moved`);
  }
  if (JSON.stringify(payload).length > BODY_LIMIT - 1024) throw new UsageError(`the run is larger than the API's ${BODY_LIMIT}-byte body limit even without per-household values; validate fewer households per run`);
  return payload;
}

/** The data of an answer with the expected status; anything else is one line naming `what`. */
async function answerData<T>(api: ApiClient, method: 'GET' | 'POST', route: string, status: number, what: string, body?: unknown): Promise<T> {
  const answer = await api.call(method, route, body).catch((err: unknown) => {
    throw err instanceof ApiUnreachable ? new ApiUnreachable(`--publish: ${err.message}`) : err;
  });
  const data = answer.status === status ? dataOf<T>(answer) : undefined;
  if (data !== undefined) return data;
  const hint = answer.status === 401 || answer.status === 403 ? ' (publishing needs a key with admin:analytics: --key or RULES_API_KEY)' : '';
  throw new UsageError(`${what}: ${answer.status} ${answer.error || 'no data in the answer'}${hint}`);
}

export async function publish(url: string, key: string, payload: RunPayload): Promise<{ id: string; recorded_at: string }> {
  const api = apiClient(url, key);
  return answerData(api, 'POST', '/v1/admin/validation/runs', 201, `--publish to ${api.base}`, payload);
}

type PreviousValues = Map<string, Record<string, unknown>>;

/** Our values per household in a recorded run (`values` positional over its compared rows). */
function valuesOf(run: { rows?: unknown; cases?: unknown }): PreviousValues {
  const variables = (Array.isArray(run.rows) ? run.rows : []).filter((r) => r?.status !== 'drift_diff').map((r) => String(r?.variable));
  const cases = Array.isArray(run.cases) ? run.cases : [];
  return new Map(
    cases
      .filter((c): c is { id: string; values: unknown[] } => typeof c?.id === 'string' && Array.isArray(c?.values))
      .map((c) => [c.id, Object.fromEntries(c.values.map((value, i) => [variables[i], value]).filter(([, value]) => value !== null))]),
  );
}

/** Our values in the newest run of `kind` published to the daemon, if any. */
export async function previousPublished(url: string, key: string, kind: string): Promise<PreviousValues | undefined> {
  const api = apiClient(url, key);
  const { runs } = await answerData<{ runs: { id: string; kind: string }[] }>(api, 'GET', '/v1/admin/validation/runs', 200, `--publish: reading earlier runs from ${api.base}`);
  const last = runs.find((r) => r.kind === kind);
  if (!last) return undefined;
  return valuesOf(await answerData<{ rows?: unknown; cases?: unknown }>(api, 'GET', `/v1/admin/validation/runs/${encodeURIComponent(last.id)}`, 200, `--publish: reading run ${last.id}`));
}

/** The last local run of `kind` (kept in the data dir when nothing is published). */
export function previousLocal(dataDir: string, kind: string, warn: (m: string) => void): PreviousValues | undefined {
  const file = localFile(dataDir, kind);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') warn(`cannot read the previous run ${file}: ${(err as Error).message}; drift is not checked`);
    return undefined;
  }
  try {
    return valuesOf(JSON.parse(text) as { rows?: unknown; cases?: unknown });
  } catch {
    warn(`the previous run ${file} is not JSON; drift is not checked`);
    return undefined;
  }
}

export function saveLocal(dataDir: string, payload: RunPayload): void {
  const file = localFile(dataDir, payload.kind);
  makeFolder(path.dirname(file));
  writeFileSync(file, JSON.stringify(payload));
}

const localFile = (dataDir: string, kind: string) => path.join(dataDir, 'validation', `${kind.replace(/[^A-Za-z0-9_.-]/g, '_')}.last.json`);
