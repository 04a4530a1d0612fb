import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI, PROJECT } from '../../support/paths.js';

// `rules test` as a user runs it: a real process, real files, exit codes and output.

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'rules-cli-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const MODULE = `format: rulespec/v1
module:
  summary: Doubling, for tests.
rules:
  - name: doubled
    kind: derived
    entity: Household
    dtype: Money
    unit: USD
    versions:
      - effective_from: '2026-01-01'
        formula: amount * 2
`;

const passing = (expected: number) => `- name: doubles the amount
  period: 2026-01
  input:
    us:statutes/demo/a#input.amount: 10.25
  output:
    us:statutes/demo/a#doubled: ${expected}
`;

const run = (args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
  execa('node', [CLI, ...args], { reject: false, cwd: options.cwd, env: { NO_COLOR: '', FORCE_COLOR: '0', ...options.env } });

describe('rules (frame)', () => {
  it('prints help and version, exit 0', async () => {
    const help = await run(['--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('test [options] [paths...]');
    const version = await run(['--version']);
    expect(version.exitCode).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('exits 2 on an unknown command or option', async () => {
    expect((await run(['frobnicate'])).exitCode).toBe(2);
    const bad = await run(['test', '--no-such-flag']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('unknown option');
  });
});

describe('rules test', () => {
  it('passes a good module: exit 0 and the closing line', async () => {
    const root = tree({ 'us/statutes/demo/a.yaml': MODULE, 'us/statutes/demo/a.test.yaml': passing(20.5) });
    const res = await run(['test'], { cwd: root });
    expect(res.exitCode).toBe(0);
    expect(res.stdout.trim().split('\n').at(-1)).toBe('1 passed, 0 failed');
  });

  it('reports a failing case with file, case, output, expected and actual; exit 1', async () => {
    const root = tree({ 'us/statutes/demo/a.yaml': MODULE, 'us/statutes/demo/a.test.yaml': passing(21) });
    const res = await run(['test', '--root', root]);
    expect(res.exitCode).toBe(1);
    expect(res.stdout).toMatch(/FAIL \S*us\/statutes\/demo\/a\.test\.yaml:1 › doubles the amount/);
    expect(res.stdout).toContain('us:statutes/demo/a#doubled');
    expect(res.stdout).toContain('expected: 21');
    expect(res.stdout).toContain('actual:   20.5');
    expect(res.stdout.trim().split('\n').at(-1)).toBe('0 passed, 1 failed');
  });

  it('--json prints the summary and every result', async () => {
    const root = tree({
      'us/statutes/demo/a.yaml': MODULE,
      'us/statutes/demo/a.test.yaml': passing(20.5) + passing(3).replace('doubles the amount', 'wrong'),
    });
    const res = await run(['test', '--json', path.join(root, 'us')]);
    expect(res.exitCode).toBe(1);
    const out = JSON.parse(res.stdout);
    expect(out.summary).toEqual({ files: 1, cases: 2, passed: 1, failed: 1, errored: 0 });
    expect(out.results[1]).toMatchObject({ case: 'wrong', status: 'fail', failures: [{ output: 'us:statutes/demo/a#doubled', expected: 3, actual: 20.5 }] });
  });

  it('--filter selects cases by name', async () => {
    const root = tree({
      'us/statutes/demo/a.yaml': MODULE,
      'us/statutes/demo/a.test.yaml': passing(20.5) + passing(3).replace('doubles the amount', 'wrong'),
    });
    const res = await run(['test', '--json', '--filter', 'doubles', '--root', root]);
    expect(JSON.parse(res.stdout).summary).toMatchObject({ cases: 1, passed: 1 });
    expect(res.exitCode).toBe(0);
  });

  it('a reader that closes the pipe early (`| head`) ends the command quietly, no EPIPE trace', async () => {
    const root = tree({ 'us/statutes/demo/a.yaml': MODULE, 'us/statutes/demo/a.test.yaml': Array.from({ length: 1500 }, (_, i) => passing(20.5).replace('doubles the amount', `case ${i}`)).join('') });
    const res = await execa('bash', ['-c', `node ${CLI} test --json --root ${root} | head -c 10 >/dev/null; echo "exit \${PIPESTATUS[0]}"`], { reject: false });
    expect(res.stderr).not.toMatch(/EPIPE|\n\s+at /);
    expect(res.stdout.trim()).toBe('exit 0');
  });

  it('a --filter that matches no case is one line and exit 2, not a pass', async () => {
    const root = tree({ 'us/statutes/demo/a.yaml': MODULE, 'us/statutes/demo/a.test.yaml': passing(20.5) });
    const res = await run(['test', '--filter', 'no such case', '--root', root]);
    expect(res.exitCode).toBe(2);
    expect(res.stderr.trim()).toBe('rules: --filter "no such case" matches no case in the 1 test files');
    expect(res.stdout).toBe('');
  });

  it('without paths or --root in the project: the bundled encodings under rulespec/, all passing', async () => {
    const res = await run(['test', '--json'], { cwd: PROJECT });
    expect(res.exitCode, res.stderr).toBe(0);
    const { summary, results } = JSON.parse(res.stdout);
    expect(summary.cases).toBeGreaterThan(100);
    expect(summary).toMatchObject({ failed: 0, errored: 0 });
    expect(results.every((r: { file: string }) => r.file.startsWith('rulespec/'))).toBe(true);
  });

  it('outside any encodings, without paths or --root: the bundled encodings', async () => {
    const res = await run(['test'], { cwd: mkdtempSync(path.join(tmpdir(), 'rules-cwd-')) });
    expect(res.exitCode, res.stderr).toBe(0);
    expect(res.stdout.trim().split('\n').at(-1)).toMatch(/^\d{3,} passed, 0 failed$/);
  });

  it('a broken module errors with a located message while other files still test', async () => {
    const root = tree({
      'us/statutes/demo/a.yaml': MODULE,
      'us/statutes/demo/a.test.yaml': passing(20.5),
      'us/statutes/demo/b.yaml': MODULE.replace('amount * 2', 'round(amount)'),
      'us/statutes/demo/b.test.yaml': passing(20.5).replace(/demo\/a/g, 'demo/b'),
    });
    const res = await run(['test', '--root', root]);
    expect(res.exitCode).toBe(1);
    expect(res.stdout).toMatch(/b\.yaml:12:18: rule `doubled`: unknown function `round`/);
    expect(res.stdout).toContain('        formula: round(amount)');
    expect(res.stdout).toMatch(/\n\s+\| {18}\^/);
    expect(res.stdout.trim().split('\n').at(-1)).toBe('1 passed, 1 failed');
    expect(res.stdout).toMatch(/2 cases in .* \(of the 1 failed, 1 could not run\)/);
  });

  it('infers the root from a path inside a jurisdiction folder', async () => {
    const root = tree({ 'us/statutes/demo/a.yaml': MODULE, 'us/statutes/demo/a.test.yaml': passing(20.5) });
    const res = await run(['test', path.join(root, 'us/statutes/demo/a.yaml')]);
    expect(res.exitCode).toBe(0);
  });

  it('exits 2 for a missing path or a folder without tests', async () => {
    const missing = await run(['test', '/no/such/place']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('no such file or folder');
    const empty = tree({ 'README.md': 'nothing here' });
    const none = await run(['test', '--root', empty]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain('no companion test files');
  });

  it('colours only when allowed: FORCE_COLOR paints, NO_COLOR wins', async () => {
    const root = tree({ 'us/statutes/demo/a.yaml': MODULE, 'us/statutes/demo/a.test.yaml': passing(21) });
    const forced = await run(['test', '--root', root], { env: { FORCE_COLOR: '1' } });
    expect(forced.stdout).toContain('\u001b[');
    const plain = await run(['test', '--root', root], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(plain.stdout).not.toContain('\u001b[');
  });
});
