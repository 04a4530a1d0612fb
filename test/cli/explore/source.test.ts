import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpSource } from '../../../cli/explore/http-source.js';
import { localSource } from '../../../cli/explore/local-source.js';
import { type ExplorerSource, SourceError } from '../../../cli/explore/source.js';
import { serve, type Served } from '../../support/daemon.js';
import { compileBundled } from './helpers.js';

// The explorer's two sources answer every question alike: in-process over a compiled output,
// and over HTTP from a real `rules serve` of the same encodings.

const KEY = 'explore-source-test-key-all-scopes-01';
/** The scopes the explorer documents it needs, and no more. */
const NARROW_KEY = 'explore-source-test-key-three-scopes-1';

let compiled: ReturnType<typeof compileBundled>;
let served: Served;
let local: ExplorerSource;
let remote: ExplorerSource;
beforeAll(async () => {
  compiled = compileBundled();
  served = await serve({
    keys: [
      { id: 'all', key: KEY, scopes: ['*'] },
      { id: 'explorer', key: NARROW_KEY, scopes: ['rules:read', 'sources:read', 'calculate:run'] },
    ],
  });
  local = localSource(compiled.catalog, 'compiled');
  remote = httpSource(served.url, KEY);
});
afterAll(async () => {
  compiled?.cleanup();
  expect(await served?.stop()).toBe(0);
});

async function failure(answer: Promise<unknown>): Promise<SourceError> {
  const err = await answer.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SourceError);
  return err as SourceError;
}

describe('ExplorerSource in-process and over HTTP', () => {
  it('list the same packages and programs', async () => {
    expect(await remote.packages()).toEqual(await local.packages());
    expect(await remote.programs()).toEqual(await local.programs());
    expect((await local.packages()).map((p) => p.program_id)).toContain('co-snap');
  });

  it('give the same package detail and graph', async () => {
    expect(await remote.packageDetail('us-co', 'co-snap')).toEqual(await local.packageDetail('us-co', 'co-snap'));
    expect(await remote.graph('us-co', 'co-snap')).toEqual(await local.graph('us-co', 'co-snap'));
  });

  it('search alike, and find nothing for a query the API would refuse as too short', async () => {
    const results = await local.search('snap allot');
    expect(results.length).toBeGreaterThan(3);
    expect(await remote.search('snap allot')).toEqual(results);
    expect(await local.search(' a ')).toEqual([]);
    expect(await remote.search(' a ')).toEqual([]);
  });

  it('give the same rule with its sources, by id or citation path, and the same not_found', async () => {
    const view = await local.rule('us:statutes/7/2017/a#snap_allotment');
    expect(view.sources[0].url).toBe('https://www.law.cornell.edu/uscode/text/7/2017');
    expect(await remote.rule('us:statutes/7/2017/a#snap_allotment')).toEqual(view);
    expect(await remote.rule('us/statutes/7/2017/a/snap_allotment')).toEqual(view);
    expect((await failure(local.rule('us:nowhere#nothing'))).code).toBe('not_found');
    expect((await failure(remote.rule('us:nowhere#nothing'))).code).toBe('not_found');
  });

  it('calculate the same outputs and trace, and refuse the same household', async () => {
    const sample = (await local.packageDetail('us-co', 'co-snap')).sample_request;
    const here = await local.calculate(sample);
    expect(here.trace.length).toBeGreaterThan(10);
    expect(await remote.calculate(sample)).toEqual(here);
    const bad = { ...sample, household: { ...sample.household, entities: { Household: { household: { snap_earned_income: -5 } } } } };
    const [a, b] = [await failure(local.calculate(bad)), await failure(remote.calculate(bad))];
    expect(a.code).toBe('invalid_household');
    expect(b.code).toBe('invalid_household');
    expect(b.message).toContain(a.message);
  });

  it('name the daemon when it cannot be reached or refuses the key', async () => {
    expect((await failure(httpSource('http://127.0.0.1:9', KEY).packages())).message).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:9: /);
    const refused = await failure(httpSource(served.url, 'not-a-key-of-this-daemon-0000000000').packages());
    expect(refused.code).toBe('unauthorized');
  });

  it('needs no more than rules:read, sources:read and calculate:run', async () => {
    const narrow = httpSource(served.url, NARROW_KEY);
    const [p] = await narrow.packages();
    await narrow.programs();
    const detail = await narrow.packageDetail(p.jurisdiction, p.program_id);
    await narrow.graph(p.jurisdiction, p.program_id);
    const [hit] = await narrow.search('snap allotment');
    expect((await narrow.rule(hit.id)).rule.id).toBe(hit.id);
    expect((await narrow.calculate(detail.sample_request)).trace.length).toBeGreaterThan(0);
  });
});
