import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CalculateRequest } from '../../../compiler/4-package/package-types.js';
import { serve, type Served } from '../../support/daemon.js';
import { selected, Terminal } from '../../support/tmux.js';

// `rules explore` as a user drives it in a real terminal (tmux), with the values it shows
// checked against what a real daemon's POST /v1/calculate answers for the same household.

const KEY = 'explore-e2e-test-key-with-all-scopes-1';
let served: Served;
let terminal: Terminal | undefined;
beforeAll(async () => {
  served = await serve({ keys: [{ id: 'all', key: KEY, scopes: ['*'] }] });
});
afterEach(async () => {
  await terminal?.close();
  terminal = undefined;
});
afterAll(async () => {
  expect(await served?.stop()).toBe(0);
});

async function api<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${served.url}${route}`, { method, headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(res.status, route).toBe(200);
  return ((await res.json()) as { data: T }).data;
}

/** POST /v1/calculate for co-snap's sample household with some Household inputs changed. */
async function calculated(changes: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { package: detail } = await api<{ package: { sample_request: CalculateRequest } }>('GET', '/v1/runtime/packages/us-co/co-snap');
  const request = structuredClone(detail.sample_request);
  Object.assign((request.household as { entities: { Household: { household: Record<string, unknown> } } }).entities.Household.household, changes);
  return (await api<{ outputs: Record<string, unknown> }>('POST', '/v1/calculate', request)).outputs;
}

/** From the Programs screen: co-snap's household, with the cursor on an input of the household. */
async function openCoSnapHousehold(t: Terminal, input: string): Promise<void> {
  await t.until('Runtime packages');
  await t.moveTo('j', (l) => l.includes('us-co/co-snap'));
  await t.keys('Enter');
  // keys count once a screen has its data (while it loads they do nothing)
  await t.until((s) => s.includes('Programs › us-co/co-snap') && s.includes('Outputs (6)'));
  await t.keys('c');
  await t.until((s) => s.includes('co-snap household') && s.includes('trace steps'));
  await t.moveTo('j', (l) => l.startsWith(`household.${input} =`));
}

describe('rules explore in a terminal', () => {
  it('searches a rule, opens it, follows a dependency, opens co-snap, changes an input to the API value, and quits with 0', { timeout: 120_000 }, async () => {
    terminal = new Terminal();
    const t = terminal;
    await t.start([]);
    // the bundled encodings, compiled on the fly
    expect(await t.until('Runtime packages', 60_000)).toContain('the bundled encodings, compiled for this run');
    await t.keys('/');
    await t.until('Search:');
    await t.type('snap allotment');
    await t.until('Rules matching "snap allotment"');
    await t.moveTo('Down', (l) => l.startsWith('snap_allotment '));
    await t.keys('Enter');
    let screen = await t.until('Citation: 7 USC 2017(a)');
    expect(screen).toContain('https://www.law.cornell.edu/uscode/text/7/2017');
    expect(screen).toContain('if not snap_income_eligible: 0');
    const dependency = 'us:regulations/7-cfr/273/9#snap_income_eligible';
    expect(selected(screen).startsWith(`${dependency} `)).toBe(true);
    await t.keys('Enter');
    screen = await t.until((s) => s.includes('Programs › search › snap_allotment › snap_income_eligible') && s.includes('Citation:'));
    expect(screen).toContain(dependency);
    // back one screen at a time (two Escapes in one read would be one Alt+Escape)
    for (const crumb of ['Programs › search › snap_allotment', 'Programs › search', 'Programs']) {
      await t.keys('Escape');
      await t.until((s) => s.split('\n')[1] === crumb);
    }

    await openCoSnapHousehold(t, 'snap_earned_income');
    const before = await calculated({});
    await t.until(`snap_allotment = ${before.snap_allotment}`);
    await t.keys('Enter');
    await t.until('enter set');
    await t.keys(...Array(8).fill('BSpace'));
    await t.until('household.snap_earned_income = ▏');
    await t.type('2400');
    await t.keys('Enter');
    await t.until('household.snap_earned_income = 2400 USD');
    const after = await calculated({ snap_earned_income: 2400 });
    expect(after.snap_allotment).not.toEqual(before.snap_allotment);
    screen = await t.until(`snap_allotment = ${after.snap_allotment}  (was ${before.snap_allotment})`);
    expect(screen).toContain(`co_snap_monthly_benefit = ${after.co_snap_monthly_benefit}`);

    await t.keys('q');
    expect(await t.exitCode()).toBe(0);
  });

  it('explores a running daemon with --url and --key through the same screens', { timeout: 120_000 }, async () => {
    terminal = new Terminal();
    const t = terminal;
    await t.start(['--url', served.url, '--key', KEY]);
    expect(await t.until('Runtime packages')).toContain(`rules explore ${served.url}`);
    // keys sent in one go right after / all reach the search box it opens
    await t.keys('/net income');
    expect(await t.until('Rules matching "net income"')).toMatch(/^Search: net income/m);
    await t.keys('Escape');
    await t.until((s) => s.split('\n')[1] === 'Programs');
    await openCoSnapHousehold(t, 'snap_pays_telephone');
    await t.keys('Enter');
    await t.until('household.snap_pays_telephone = true');
    const after = await calculated({ snap_pays_telephone: true });
    await t.until(`snap_utility_allowance = ${after.snap_utility_allowance}  (was ${(await calculated({})).snap_utility_allowance})`);
    // the output's trace, through the API
    await t.keys('Tab');
    await t.moveTo('j', (l) => l.startsWith('▸ snap_utility_allowance ='));
    await t.keys('Enter');
    await t.until((s) => s.includes(`▾ snap_utility_allowance = ${after.snap_utility_allowance}`) && s.includes('snap_pays_telephone = true  input'));
    await t.keys('q');
    expect(await t.exitCode()).toBe(0);
  });

  it('marks what the answer assumed, fills the next assumed input with a, and shows why with w', { timeout: 120_000 }, async () => {
    terminal = new Terminal();
    const t = terminal;
    await t.start(['--url', served.url, '--key', KEY]);
    await openCoSnapHousehold(t, 'snap_shelter_costs');
    // cleared, the shelter costs are not given: the daemon's answer assumes 0 and the form marks it
    await t.keys('x');
    const screen = await t.until('? household.snap_shelter_costs = —  assumed 0');
    expect(screen).toContain('· 1 assumed');
    expect(screen).toContain('x clear · a next assumed');
    const assumed = await calculated({ snap_shelter_costs: undefined });
    await t.until(`snap_allotment = ${assumed.snap_allotment}`);
    // from the first input, `a` goes to it and opens it for typing
    await t.moveTo('k', (l) => l.startsWith('household.household_size ='));
    await t.keys('a');
    await t.until('household.snap_shelter_costs = ▏');
    await t.type('900');
    await t.keys('Enter');
    await t.until((s) => s.includes('household.snap_shelter_costs = 900 USD') && !s.includes('assumed'));
    // why the first output came out so: its explanation, through the API
    await t.keys('Tab', 'w', 'Enter');
    await t.until((s) => s.includes('= if not snap_income_eligible: 0') && s.includes('took the'));
    await t.keys('q');
    expect(await t.exitCode()).toBe(0);
  });

  it('adapts to a narrow terminal and to resizes, and colours nothing under NO_COLOR', { timeout: 120_000 }, async () => {
    terminal = new Terminal();
    const t = terminal;
    await t.start(['--url', served.url, '--key', KEY], { columns: 80, rows: 24 });
    await t.until('Runtime packages');
    const plain = await t.screen(true);
    // no SGR colour (30-37, 90-97, 38;…) anywhere on the screen
    expect(plain).not.toMatch(/\u001b\[[0-9;]*(3[0-8]|9[0-7])(;[0-9;]*)?m/);
    await t.moveTo('j', (l) => l.startsWith('us-ca/ca-snap'));
    await t.keys('Enter');
    const screen = await t.until((s) => s.includes('Programs › us-ca/ca-snap') && /^Inputs/m.test(s));
    expect(screen.split('\n').every((l) => l.length <= 80)).toBe(true);
    // narrow: outputs above inputs instead of beside them
    const lines = screen.split('\n');
    expect(lines.findIndex((l) => l.startsWith('Inputs'))).toBeGreaterThan(lines.findIndex((l) => l.startsWith('Outputs')));
    // wider: side by side; narrower again: stacked, the frame redrawn whole from the top
    await t.resize(120, 24);
    await t.until(/^Outputs \(6\) +Inputs/m);
    await t.resize(80, 24);
    const redrawn = await t.until((s) => /^Inputs/m.test(s));
    expect(redrawn.split('\n').slice(0, 2)).toEqual([`rules explore ${served.url}`, 'Programs › us-ca/ca-snap']);
    await t.keys('q');
    expect(await t.exitCode()).toBe(0);
  });

  it('colours the screen on a colour terminal without NO_COLOR', { timeout: 120_000 }, async () => {
    terminal = new Terminal();
    const t = terminal;
    await t.start(['--url', served.url, '--key', KEY], { color: true });
    await t.until('Runtime packages');
    expect(await t.screen(true)).toMatch(/\u001b\[[0-9;]*(3[0-8]|9[0-7])(;[0-9;]*)?m/);
    await t.keys('q');
    expect(await t.exitCode()).toBe(0);
  });

  it('compiles --root folders for the run, and says so when they hold no program', { timeout: 120_000 }, async () => {
    terminal = new Terminal();
    const t = terminal;
    await t.start(['--root', 'rulespec']);
    expect(await t.until('Runtime packages', 60_000)).toContain('rules explore compiled for this run from rulespec');
    await t.keys('q');
    expect(await t.exitCode()).toBe(0);
    await t.close();

    terminal = new Terminal();
    const empty = mkdtempSync(path.join(tmpdir(), 'rules-explore-root-'));
    await terminal.start(['--root', empty]);
    expect(await terminal.exitCode(60_000)).toBe(2);
    expect((await terminal.screen()).replace(/\n/g, '')).toContain(`rules: --root ${empty}: no program compiled (program specs go under <root>/programs/<jurisdiction>/<program>/<period>.yaml)`);
  });
});
