import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { displayPath } from '../../../cli/output.js';
import { CLI } from '../../support/paths.js';

// A corpus laid out as a single-country one is: local-authority jurisdictions with long names,
// program specs in both layouts, and things that are not read (an unknown folder, stray YAML,
// an unplaced spec), run through `rules test` and `rules compile` as a user runs them.

const LONG = 'uk-bath-and-north-east-somerset';
const KINGSTON = 'uk-kingston-upon-thames';

const module = (name: string, formula: string) => `format: rulespec/v1
module:
  summary: ${name}, for tests.
rules:
  - name: ${name}
    kind: derived
    entity: Household
    dtype: Money
    unit: GBP
    versions:
      - effective_from: '2026-04-01'
        formula: ${formula}
`;

const test = (target: string, name: string, input: number, expected: number) => `- name: ${name} of ${input}
  period: 2026-04
  input:
    ${target}#input.amount: ${input}
  output:
    ${target}#${name}: ${expected}
`;

const spec = (program: string, scope: string, output: string, federal?: string) => `program: ${program}
period: 2026-04
outputs:
  - ${output}
scope:
  state:
    - ${scope}
${federal ? `  federal:\n    - ${federal}\n` : ''}`;

const CORPUS: Record<string, string> = {
  [`${LONG}/legislation/council-tax/reduction.yaml`]: module('reduction', 'amount * 2'),
  [`${LONG}/legislation/council-tax/reduction.test.yaml`]: test(`${LONG}:legislation/council-tax/reduction`, 'reduction', 10, 20),
  [`${KINGSTON}/policies/support.yaml`]: module('support', 'amount + 1'),
  [`${KINGSTON}/policies/support.test.yaml`]: test(`${KINGSTON}:policies/support`, 'support', 10, 11),
  'uk/legislation/allowance.yaml': module('allowance', 'amount * 3'),
  'uk/legislation/allowance.test.yaml': test('uk:legislation/allowance', 'allowance', 2, 6),
  // a folder inside a module path named like a jurisdiction
  'uk/legislation/si-2026-12/rate.yaml': module('rate', 'amount / 2'),
  'uk/legislation/si-2026-12/rate.test.yaml': test('uk:legislation/si-2026-12/rate', 'rate', 8, 4),
  // second layout: <jurisdiction>/programs/<program>/<period>.yaml
  // (`federal:` is the country: uk:legislation/allowance)
  [`${LONG}/programs/council-tax-reduction/2026-04.yaml`]: spec(`${LONG}/council-tax-reduction`, 'legislation/council-tax/reduction', 'reduction', 'legislation/allowance'),
  // first layout: programs/<jurisdiction>/<program>/<period>.yaml
  [`programs/${KINGSTON}/support/2026-04.yaml`]: spec(`${KINGSTON}/support`, 'policies/support', 'support'),
  // a scope entry that does not resolve, in each layout
  'uk-ashford/programs/broken/2026-04.yaml': spec('uk-ashford/broken', 'legislation/missing', 'nothing'),
  'programs/uk/broken/2026-04.yaml': spec('uk/broken', 'legislation/absent', 'nothing'),
  // a spec whose program names another jurisdiction than its folder
  [`programs/${KINGSTON}/elsewhere/2026-04.yaml`]: spec(`${LONG}/elsewhere`, 'legislation/council-tax/reduction', 'reduction'),
  // not read, each reported
  'Notes/ideas.yaml': module('ideas', 'amount'),
  'corpus.yaml': 'name: a corpus description\n',
  // read, for the root's provenance: not a warning
  'SNAPSHOT.yaml': 'source: example/rulespec-uk\ncommit: 0123abc\n',
  'uk/legislation/draft.yml': module('draft', 'amount'),
  'programs/draft.yaml': spec('uk/draft', 'legislation/allowance', 'allowance'),
};

const UNREAD = ['Notes', 'corpus.yaml', 'programs/draft.yaml', 'uk/legislation/draft.yml'];

function write(files: Record<string, string>): string {
  const root = path.join(mkdtempSync(path.join(tmpdir(), 'rules-layouts-')), 'corpus');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const run = (args: string[], cwd?: string) => execa('node', [CLI, ...args], { reject: false, cwd, env: { NO_COLOR: '1' } });

interface Warning {
  path: string;
  reason: string;
}

describe('rules test on a corpus with multi-part jurisdictions', () => {
  let root: string;
  beforeAll(() => {
    root = write(CORPUS);
  });

  it('passes every case under the long jurisdiction folders and reports what it did not read', async () => {
    const res = await run(['test', '--root', root, '--json']);
    expect(res.exitCode).toBe(0);
    const { summary, results, warnings } = JSON.parse(res.stdout) as { summary: Record<string, number>; results: { file: string; status: string }[]; warnings: Warning[] };
    expect(summary).toEqual({ files: 4, cases: 4, passed: 4, failed: 0, errored: 0 });
    expect(results.map((r) => path.relative(root, path.resolve(r.file))).sort()).toEqual([
      `${LONG}/legislation/council-tax/reduction.test.yaml`,
      `${KINGSTON}/policies/support.test.yaml`,
      'uk/legislation/allowance.test.yaml',
      'uk/legislation/si-2026-12/rate.test.yaml',
    ]);
    expect(warnings.map((w) => path.relative(root, path.resolve(w.path))).sort()).toEqual(UNREAD);
    const why = Object.fromEntries(warnings.map((w) => [path.relative(root, path.resolve(w.path)), w.reason]));
    expect(why.Notes).toMatch(/not a jurisdiction folder/);
    expect(why['corpus.yaml']).toMatch(/neither a module nor a test/);
    expect(why['uk/legislation/draft.yml']).toMatch(/\.yml/);
    expect(why['programs/draft.yaml']).toMatch(/cannot be placed/);
  });

  it('prints the warnings in the human output', async () => {
    const res = await run(['test', '--root', root]);
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toMatch(/warning .*Notes: not a jurisdiction folder/);
    expect(res.stdout).toMatch(/warning .*corpus\.yaml: neither a module nor a test/);
    expect(res.stdout.trim().split('\n').at(-1)).toBe('4 passed, 0 failed');
  });

  it('infers the root from a module path in a long jurisdiction folder, past folders only named like one', async () => {
    const res = await run(['test', path.join(root, LONG, 'legislation/council-tax/reduction.yaml'), path.join(root, 'uk/legislation/si-2026-12/rate.yaml')]);
    expect(res.exitCode).toBe(0);
    expect(res.stdout.trim().split('\n').at(-1)).toBe('2 passed, 0 failed');
    // a folder that holds jurisdiction folders is its own root
    const whole = await run(['test', root]);
    expect(whole.exitCode).toBe(0);
    expect(whole.stdout.trim().split('\n').at(-1)).toBe('4 passed, 0 failed');
  });

  it('a root with nothing but unread folders is a usage error that says what was not read', async () => {
    const empty = write({ 'Notes/a.test.yaml': '[]\n' });
    const res = await run(['test', '--root', empty]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/no companion test files.*not read:\n.*Notes: not a jurisdiction folder/s);
  });

  it('reports a linked folder it does not follow', async () => {
    const linked = write({ 'uk/legislation/allowance.yaml': CORPUS['uk/legislation/allowance.yaml'], 'uk/legislation/allowance.test.yaml': CORPUS['uk/legislation/allowance.test.yaml'] });
    symlinkSync(path.join(root, LONG), path.join(linked, LONG));
    const res = await run(['test', '--root', linked, '--json']);
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).warnings).toEqual([{ path: expect.stringMatching(new RegExp(`${LONG}$`)), reason: expect.stringMatching(/symbolic link to a folder is not followed/) }]);
  });

  it('reports a linked folder inside a jurisdiction folder, and a link to nothing, without following or failing', async () => {
    const linked = write({ 'uk/legislation/allowance.yaml': CORPUS['uk/legislation/allowance.yaml'], 'uk/legislation/allowance.test.yaml': CORPUS['uk/legislation/allowance.test.yaml'] });
    symlinkSync(path.join(root, LONG), path.join(linked, 'uk', 'elsewhere'));
    symlinkSync(path.join(linked, 'uk', 'gone.yaml'), path.join(linked, 'uk', 'legislation', 'dangling.yaml'));
    for (const command of [['test'], ['compile', '--out', path.join(linked, '..', 'linked-out')]]) {
      const res = await run([...command, '--root', linked, '--json']);
      expect(res.exitCode, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout).warnings, command[0]).toEqual([
        { path: expect.stringMatching(/corpus\/uk\/elsewhere$/), reason: 'a symbolic link to a folder is not followed; nothing under it is read' },
        { path: expect.stringMatching(/corpus\/uk\/legislation\/dangling\.yaml$/), reason: 'a symbolic link to nothing (its target does not exist) is not read' },
      ]);
    }
  });
});

describe('rules compile on a corpus with both program layouts', () => {
  let root: string;
  let summary: { packages: { jurisdiction: string; program_id: string }[]; failures: { program: string; file: string; error: string }[]; warnings: Warning[]; modules: number };
  let exitCode: number | undefined;

  beforeAll(async () => {
    root = write(CORPUS);
    const res = await run(['compile', '--root', root, '--out', path.join(root, '..', 'out'), '--json']);
    exitCode = res.exitCode;
    summary = JSON.parse(res.stdout);
  });

  it('builds a package from a spec in each layout', () => {
    expect(summary.packages.map((p) => `${p.jurisdiction}/${p.program_id}`).sort()).toEqual([`${LONG}/bath-and-north-east-somerset-council-tax-reduction`, `${KINGSTON}/kingston-upon-thames-support`]);
  });

  it('reads every module of the long jurisdictions and no spec as a module', () => {
    expect(summary.modules).toBe(4);
  });

  it('fails, exit 1, on a scope entry that does not resolve, located in the spec, in both layouts', () => {
    expect(exitCode).toBe(1);
    const byFile = Object.fromEntries(summary.failures.map((f) => [path.relative(root, f.file), f.error]));
    expect(byFile['uk-ashford/programs/broken/2026-04.yaml']).toMatch(/2026-04\.yaml:7:7: import `uk-ashford:legislation\/missing` does not resolve/);
    expect(byFile['programs/uk/broken/2026-04.yaml']).toMatch(/2026-04\.yaml:7:7: import `uk:legislation\/absent` does not resolve/);
  });

  it('fails a spec whose program names another jurisdiction than its folder', () => {
    const failure = summary.failures.find((f) => f.file.endsWith(`programs/${KINGSTON}/elsewhere/2026-04.yaml`));
    expect(failure?.error).toMatch(new RegExp(`2026-04\\.yaml:1:\\d+: \`program: ${LONG}/elsewhere\` names the jurisdiction ${LONG}, but the spec is in the folder of ${KINGSTON}`));
    expect(summary.failures).toHaveLength(3);
  });

  it('reports what it did not compile, in --json and in the human output', async () => {
    expect(summary.warnings.map((w) => path.relative(root, w.path)).sort()).toEqual(UNREAD);
    const res = await run(['compile', '--root', root, '--out', path.join(root, '..', 'out-human')]);
    expect(res.exitCode).toBe(1);
    for (const unread of UNREAD) expect(res.stdout).toContain(`warning ${displayPath(path.join(root, unread))}:`);
    expect(res.stdout).toMatch(/compiled 2 packages, 3 failed/);
  });

  it('a programs folder left out by --programs is reported, not skipped in silence', async () => {
    const only = path.join(root, '..', 'other-programs');
    mkdirSync(path.join(only, 'uk/allowance'), { recursive: true });
    writeFileSync(path.join(only, 'uk/allowance/2026-04.yaml'), spec('uk/allowance', 'legislation/allowance', 'allowance'));
    const res = await run(['compile', '--root', root, '--programs', only, '--out', path.join(root, '..', 'out-only'), '--json']);
    const { warnings, packages } = JSON.parse(res.stdout) as { warnings: Warning[]; packages: { jurisdiction: string; program_id: string }[] };
    expect(warnings.find((w) => w.path === path.join(root, 'programs'))?.reason).toMatch(/not read: --programs names/);
    // the second layout is part of the root, read whatever --programs says
    expect(packages.map((p) => `${p.jurisdiction}/${p.program_id}`).sort()).toEqual([`${LONG}/bath-and-north-east-somerset-council-tax-reduction`, 'uk/allowance']);
  });
});

describe('rules test --strict', () => {
  const target = 'us-mo:policies/demo/a';
  const files = {
    'us-mo/policies/demo/a.yaml': module('doubled', 'amount * 2'),
    // the second case's explicit input overrides the merged one: fine by default, refused by the reference harness
    'us-mo/policies/demo/a.test.yaml': `- name: base
  period: 2026-04
  input: &base
    ${target}#input.amount: 1
  output:
    ${target}#doubled: 2
- name: override
  period: 2026-04
  input:
    <<: *base
    ${target}#input.amount: 2
  output:
    ${target}#doubled: 4
`,
    'us-mo/manual/demo/b.yaml': module('tripled', 'amount * 3'),
    'us-mo/manual/demo/b.test.yaml': test('us-mo:manual/demo/b', 'tripled', 2, 6),
    'us-mo/policies/demo/c.yaml': module('halved', 'amount / 2'),
    'us-mo/policies/demo/c.test.yaml': test('us-mo:policies/demo/c', 'halved', 4, 2),
  };

  it('passes everything by default', async () => {
    const res = await run(['test', '--root', write(files), '--json']);
    expect(res.exitCode).toBe(0);
    expect(JSON.parse(res.stdout).summary).toMatchObject({ cases: 4, passed: 4 });
  });

  it('fails the file with a merge override and the inputs outside the content roots, and nothing else', async () => {
    const res = await run(['test', '--root', write(files), '--strict', '--json']);
    expect(res.exitCode).toBe(1);
    const { summary, results } = JSON.parse(res.stdout) as { summary: Record<string, number>; results: { file: string; case: string; status: string; error?: string }[] };
    expect(summary).toMatchObject({ cases: 4, passed: 1, errored: 3 });
    const broken = results.filter((r) => r.status !== 'pass');
    expect(broken.map((r) => `${path.basename(r.file)} › ${r.case}`).sort()).toEqual(['a.test.yaml › base', 'a.test.yaml › override', 'b.test.yaml › tripled of 2']);
    expect(broken.find((r) => r.case === 'base')?.error).toMatch(/a\.test\.yaml:11:5: YAML: duplicated mapping key `us-mo:policies\/demo\/a#input\.amount`: it is given explicitly and merged in by `<<:` \(line 10\)/);
    expect(broken.find((r) => r.case === 'tripled of 2')?.error).toMatch(/keyed under `manual\/`, outside the content roots the reference harness reads/);
  });
});
