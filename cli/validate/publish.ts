import { readFileSync, writeFileSync } from 'node:fs';
import { makeFolder } from '../../compiler/make-folder.js';
import path from 'node:path';
import { PACKAGE_VERSION } from '../../compiler/project.js';
import { API_VERSION } from '../../server/envelope.js';
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
    // values[i] is our value of rows[i].variable (positional, to keep a run within the body limit)
    cases: v.cases.map((c) => ({ id: c.id, set: c.set, state: c.state, status: c.status, latency_ms: c.latency_ms, values: compared.map((r) => c.values[r.variable] ?? null) })),
    api_version: API_VERSION,
    base_url: meta.baseUrl,
    model_versions: { rules: PACKAGE_VERSION, runtimes: meta.runtimes, reference: { engine: refs.engine, version: refs.engine_version, period: refs.period } },
  };
  if (JSON.stringify(payload).length > BODY_LIMIT - 1024) {
    payload.cases = payload.cases.map(({ values: _values, ...rest }) => rest);
    warn(`the run is too large to publish with every household's values (limit ${BODY_LIMIT} bytes); they are left out, so the next run cannot tell which values moved`);
  }
  if (JSON.stringify(payload).length > BODY_LIMIT - 1024) throw new UsageError(`the run is larger than the API's ${BODY_LIMIT}-byte body limit even without per-household values; validate fewer households per run`);
  return payload;
}

async function api(base: string, key: string, route: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(`${base}${route}`, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json' } });
  } catch (err) {
    throw new UsageError(`--publish: cannot reach ${base}: ${(err as Error).message}`);
  }
}

async function failure(res: Response, what: string): Promise<never> {
  const body = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
  const hint = res.status === 401 || res.status === 403 ? ' (publishing needs a key with admin:analytics: --key or RULES_API_KEY)' : '';
  throw new UsageError(`${what}: ${res.status} ${body?.error?.code ?? ''} ${body?.error?.message ?? ''}`.trim() + hint);
}

export async function publish(url: string, key: string, payload: RunPayload): Promise<{ id: string; recorded_at: string }> {
  const base = url.replace(/\/+$/, '');
  const res = await api(base, key, '/v1/admin/validation/runs', { method: 'POST', body: JSON.stringify(payload) });
  if (res.status !== 201) await failure(res, `--publish to ${base}`);
  return ((await res.json()) as { data: { id: string; recorded_at: string } }).data;
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
  const base = url.replace(/\/+$/, '');
  const list = await api(base, key, '/v1/admin/validation/runs');
  if (!list.ok) await failure(list, `--publish: reading earlier runs from ${base}`);
  const runs = ((await list.json()) as { data: { runs: { id: string; kind: string }[] } }).data.runs;
  const last = runs.find((r) => r.kind === kind);
  if (!last) return undefined;
  const res = await api(base, key, `/v1/admin/validation/runs/${encodeURIComponent(last.id)}`);
  if (!res.ok) await failure(res, `--publish: reading run ${last.id}`);
  return valuesOf(((await res.json()) as { data: { rows?: unknown; cases?: unknown } }).data);
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
