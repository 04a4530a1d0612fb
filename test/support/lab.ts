import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { writeOutputTree } from '../../compiler/5-emit/output-tree.js';
import { Workspace } from '../../compiler/workspace.js';
import { ENV_KEYS } from './app.js';

// Shared pieces of the API tests: a tiny "lab" encoding tree whose packages misbehave on purpose
// (a division by zero, a rule chain long enough to hit the time limit, a calculation slow enough
// to watch a job make progress), and assertions on the envelopes of the Rules API.

export const API_VERSION = '0.1.0';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Lab package ids: the program paths (`us-zz/lab/math`) contain a slash on purpose; the served
 *  ids are slugs derived from them. */
export const LAB = {
  jurisdiction: 'us-zz',
  math: 'zz-math',
  slow: 'zz-slow',
};

/** The bundled SNAP package of each jurisdiction. */
export const SNAP_IDS: Record<string, string> = { us: 'snap', 'us-co': 'co-snap', 'us-ny': 'ny-snap', 'us-ca': 'ca-snap' };

/** `step_{CHAIN}` evaluates CHAIN rules: more than the 256 evaluations between deadline checks. */
export const CHAIN = 300;
/** `slow_total` adds SLOW_PARTS rules, each summing every person's `base` SLOW_TERMS times
 *  (parts, not more people: a household holds at most 100). */
const SLOW_TERMS = 100;
const SLOW_PARTS = 100;

const derived = (name: string, entity: string, formula: string) =>
  `  - name: ${name}
    kind: derived
    entity: ${entity}
    dtype: Money
    unit: USD
    period: Month
    source: Lab arithmetic for the API tests
    versions:
      - effective_from: '2020-01-01'
        formula: ${formula}
`;

/** Write the lab encodings under `root` (a RuleSpec root with a `programs/` folder). */
export function writeLabEncodings(root: string): string {
  const file = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  file('programs/us-zz/lab/math/2026.yaml', 'program: us-zz/lab/math\nperiod: 2026-01\noutputs: [ratio, step_300]\nscope:\n  state:\n    - policies/lab/math\n');
  file(
    'us-zz/policies/lab/math.yaml',
    `format: rulespec/v1
module:
  summary: Lab arithmetic for the API tests (division and a long rule chain).
inputs:
  - {name: numerator, entity: Household, dtype: Money, unit: USD, default: 100}
  - {name: divisor, entity: Household, dtype: Money, unit: USD, default: 0}
rules:
${derived('ratio', 'Household', 'numerator / divisor')}
${Array.from({ length: CHAIN }, (_, i) => derived(`step_${i + 1}`, 'Household', i === 0 ? 'numerator' : `step_${i} + 1`)).join('\n')}`,
  );
  file('programs/us-zz/lab/slow/2026.yaml', 'program: us-zz/lab/slow\nperiod: 2026-01\noutputs: [slow_total]\nscope:\n  state:\n    - policies/lab/slow\n');
  file(
    'us-zz/policies/lab/slow.yaml',
    `format: rulespec/v1
module:
  summary: Lab calculation whose cost grows with the number of people listed (10,000 terms per person).
inputs:
  - {name: base, entity: Person, dtype: Money, unit: USD, default: 1}
rules:
  - name: member_of_household
    kind: data_relation
    data_relation:
      arity: 2
      arguments: [Person, Household]
${Array.from({ length: SLOW_PARTS }, (_, i) => derived(`slow_part_${i + 1}`, 'Household', Array.from({ length: SLOW_TERMS }, () => 'sum(member_of_household.base)').join(' + '))).join('\n')}
${derived('slow_total', 'Household', Array.from({ length: SLOW_PARTS }, (_, i) => `slow_part_${i + 1}`).join(' + '))}`,
  );
  return root;
}

let labRootDir: string | undefined;
let labCompiled: string | undefined;

/** The lab encodings in a temporary RuleSpec root (once per test file). */
export function labRoot(): string {
  labRootDir ??= writeLabEncodings(path.join(mkdtempSync(path.join(tmpdir(), 'rules-lab-')), 'rulespec'));
  return labRootDir;
}

/** The lab encodings compiled the way `rules compile` does (once per test file). */
export function labOutput(): string {
  if (!labCompiled) {
    const root = labRoot();
    labCompiled = path.join(path.dirname(root), 'compiled');
    const build = new Workspace([root], [path.join(root, 'programs')]).build();
    if (build.failures.length) throw new Error(`lab encodings do not compile: ${JSON.stringify(build.failures)}`);
    writeOutputTree(labCompiled, build, { durationMs: 0 }, { fullSweep: true });
  }
  return labCompiled;
}

/** A household for `lab/slow`: its cost grows with `people` (about 0.2 ms per person). */
export function slowHousehold(people: number): Record<string, unknown> {
  return { people: Object.fromEntries(Array.from({ length: people }, (_, i) => [`p${i}`, {}])) };
}

/** The harness keys with a rate limit no test file reaches (the default is 120 per minute per key). */
export const GENEROUS_KEYS = JSON.stringify(
  (JSON.parse(ENV_KEYS) as { rate_limit?: unknown }[]).map((k) => (k.rate_limit ? k : { ...k, rate_limit: { requests: 1_000_000, window_seconds: 60 } })),
);

/** The federal SNAP sample household: a computable request. */
export const SNAP_REQUEST = {
  program_id: 'snap',
  jurisdiction: 'us',
  household: { period: '2026-01', facts: { household_size: 3, snap_earned_income: 1500, snap_shelter_costs: 900 }, people: { 'person-1': { age: 34 }, 'person-2': { age: 31 }, 'person-3': { age: 6 } } },
};

export interface Meta {
  request_id: string;
  api_version: string;
  environment: string;
}

export function expectMeta(meta: Meta, environment = 'local'): void {
  expect(meta).toEqual({ request_id: expect.any(String), api_version: API_VERSION, environment });
  expect(meta.request_id.length).toBeGreaterThan(0);
}

/** A success envelope with `status`; returns `data`. */
export function expectOk(res: LightMyRequestResponse, status = 200, environment = 'local'): any {
  if (res.statusCode !== status) throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body.slice(0, 500)}`);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json();
  expect(Object.keys(body).sort()).toEqual(['data', 'meta', 'status']);
  expect(body.status).toBe('ok');
  expectMeta(body.meta, environment);
  expect(body.meta.request_id).toBe(res.headers['x-request-id']);
  return body.data;
}

export interface ErrorBody {
  status: 'error';
  error: { code: string; message: string };
  meta: Meta;
  data?: any;
}

/** An error envelope with `status` and `code`; returns the body. */
export function expectError(res: LightMyRequestResponse, status: number, code: string, environment = 'local'): ErrorBody {
  if (res.statusCode !== status) throw new Error(`expected ${status} ${code}, got ${res.statusCode}: ${res.body.slice(0, 500)}`);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json() as ErrorBody;
  expect(body.status).toBe('error');
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(Object.keys(body).every((k) => ['status', 'error', 'meta', 'data'].includes(k))).toBe(true);
  expectMeta(body.meta, environment);
  expect(body.meta.request_id).toBe(res.headers['x-request-id']);
  return body;
}

/** A JSON body of exactly `bytes` bytes: `{...base, pad: "xxx…"}`. */
export function paddedBody(base: Record<string, unknown>, bytes: number): string {
  const empty = JSON.stringify({ ...base, pad: '' });
  const text = JSON.stringify({ ...base, pad: 'x'.repeat(bytes - Buffer.byteLength(empty)) });
  if (Buffer.byteLength(text) !== bytes) throw new Error('paddedBody: could not hit the size');
  return text;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
