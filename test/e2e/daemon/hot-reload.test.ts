import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { serve } from '../../support/daemon.js';
import { PROJECT } from '../../support/paths.js';

// `rules serve --watch`: an edit to an encoding recompiles and swaps the package in place.

const KEY = 'reload-test-key-00000000000000000001';

describe('rules serve --watch', () => {
  it('hot-reloads a package after an edit and keeps serving', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'rules-reload-'));
    const root = path.join(base, 'rulespec');
    cpSync(path.join(PROJECT, 'rulespec'), root, { recursive: true });
    const daemon = await serve({ args: ['--watch', '--store', 'memory', '--data-dir', path.join(base, 'data'), '--root', root], keys: [{ id: 't', key: KEY, scopes: ['*'] }] });
    const url = daemon.url;
    const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
    const detail = async () => ((await (await fetch(`${url}/v1/runtime/packages/us/snap`, { headers })).json()) as { data: { package: { runtime_id: string; sample_request: object } } }).data.package;
    const calc = async (request: object) => ((await (await fetch(`${url}/v1/calculate`, { method: 'POST', headers, body: JSON.stringify(request) })).json()) as { data: { outputs: { snap_allotment: number } } }).data.outputs.snap_allotment;

    const before = await detail();
    const allotmentBefore = await calc(before.sample_request);
    const table = path.join(root, 'us/policies/usda/snap/fy-2026/maximum-allotments.yaml');
    writeFileSync(table, readFileSync(table, 'utf8').replace('3: 785', '3: 800'));

    let after = before;
    for (let i = 0; i < 100 && after.runtime_id === before.runtime_id; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await detail();
    }
    expect(after.runtime_id).not.toBe(before.runtime_id);
    expect(await calc(after.sample_request)).toBe(allotmentBefore + 15);
    expect(daemon.output()).toMatch(/reloaded \d+ packages/);
    expect(await daemon.stop()).toBe(0);
  }, 60_000);
});
