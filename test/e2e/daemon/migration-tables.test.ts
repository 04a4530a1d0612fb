import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeOutputTree } from '../../../compiler/5-emit/output-tree.js';
import { Workspace } from '../../../compiler/workspace.js';
import { serve, type Served } from '../../support/daemon.js';
import { CORPUS, HAVE_CORPUS } from '../../support/paths.js';

// A daemon serving a corpus that changed since the mapping tables were written: Alabama's SNAP
// program over a 7 CFR 273.10 whose medical expenses input has been renamed. The table's legal
// id is then in no served package, and the daemon says so when it starts, naming the variables
// that feed nothing; the endpoint still answers, from what the tables can feed.

const work = mkdtempSync(path.join(tmpdir(), 'rules-renamed-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.runIf(HAVE_CORPUS)('mapping tables against a corpus that changed', () => {
  let daemon: Served | undefined;
  afterAll(async () => {
    await daemon?.stop();
  });

  it('warns at start about each legal id of a table the served packages lack, and answers anyway', async () => {
    // the first root holding a module wins: this one holds only the changed 273.10
    const changed = path.join(work, 'changed', 'us', 'regulations', '7-cfr', '273', '10.yaml');
    cpSync(path.join(CORPUS, 'us', 'regulations', '7-cfr', '273', '10.yaml'), changed);
    const text = readFileSync(changed, 'utf8');
    expect(text).toContain('snap_total_medical_expenses');
    writeFileSync(changed, text.replaceAll('snap_total_medical_expenses', 'snap_allowable_medical_costs'));
    const out = path.join(work, 'compiled');
    writeOutputTree(out, new Workspace([path.join(work, 'changed'), CORPUS], [path.join(CORPUS, 'programs', 'us-al', 'snap')], { closureOnly: true }).build(), { durationMs: 0 }, { fullSweep: true });

    const key = 'renamed-corpus-test-key-000000000000000001';
    daemon = await serve({ args: ['--compiled', out, '--store', 'memory'], env: { RULES_LOG_LEVEL: 'warn', RULES_API_KEYS: JSON.stringify([{ id: 't', key, scopes: ['compat:external'] }]) } });
    // the log (stdout) and the banner (stderr) arrive on their own streams: wait for the log
    const expected =
      'mapping table rulespec-us federal (written against TheAxiomFoundation/rulespec-us@c55778119c0d): no served state package has us:regulations/7-cfr/273/10#input.snap_total_medical_expenses; people.other_medical_expenses, people.medical_expense_health_insurance_premiums, people.health_insurance_premiums, people.health_insurance_premiums_without_medicare_part_b, people.medicare_part_b_premium feed nothing there';
    for (let waited = 0; !daemon.output().includes(expected) && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    expect(daemon.output()).toContain(expected);

    const year = (v: unknown) => ({ 2026: v });
    const res = await fetch(`${daemon.url}/v1/household/us/calculate`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({
        household: {
          people: { a: { age: year(40), employment_income: year(12_000) } },
          spm_units: { s: { members: ['a'], snap: { '2026-01': null } } },
          households: { h: { members: ['a'], state_code: year('AL') } },
        },
      }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.sidecar.package).toEqual({ program_id: 'al-snap', jurisdiction: 'us-al' });
    expect(body.result.spm_units.s.snap['2026-01']).toEqual(expect.any(Number));
  });
});
