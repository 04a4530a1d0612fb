import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI } from '../../support/paths.js';
import { caseText, loopCorpus, moduleText, rule } from './loop-corpus.js';

// `rules test --watch` as a user runs it: a real process over a temp corpus, edits on disk, one
// JSON object per run on stdout, stopped with SIGTERM.

interface Run {
  run?: number;
  changed?: string[];
  summary: { files: number; cases: number; failed: number };
  results: { file: string; case: string; status: string }[];
  totals?: { files: number; failed: number };
}

describe('rules test --watch', () => {
  it('re-runs only the test files whose import closure an edit touched; SIGTERM exits with the last state', async () => {
    const root = loopCorpus();
    const proc = execa('node', [CLI, 'test', '--watch', '--json', '--root', root, '--cache-dir', mkdtempSync(path.join(tmpdir(), 'rules-cache-'))], { cwd: root, reject: false, buffer: false });
    const runs: Run[] = [];
    let waiters: (() => void)[] = [];
    let pending = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
        runs.push(JSON.parse(pending.slice(0, nl)) as Run);
        pending = pending.slice(nl + 1);
        waiters.forEach((w) => w());
        waiters = [];
      }
    });
    const nextRun = (count: number) =>
      new Promise<Run>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no run #${count} within 20 s`)), 20_000);
        const check = () => (runs.length >= count ? (clearTimeout(timer), resolve(runs[count - 1])) : waiters.push(check));
        check();
      });
    const ranFiles = (r: Run) => [...new Set(r.results.map((x) => path.basename(x.file)))].sort();

    const first = await nextRun(1);
    expect(first.summary).toMatchObject({ files: 4, cases: 4, failed: 0 });
    // the first run is reported once the watcher is ready

    // a module that two others import: its own test and theirs, not c's
    const base = path.join(root, 'us/statutes/demo/base.yaml');
    writeFileSync(base, readFileSync(base, 'utf8').replace('amount * 2', 'amount * 3'));
    const second = await nextRun(2);
    expect(second.changed).toEqual([path.relative(root, base)]);
    expect(ranFiles(second)).toEqual(['a.test.yaml', 'b.test.yaml', 'base.test.yaml']);
    expect(second.summary).toMatchObject({ files: 3, failed: 3 });
    expect(second.totals).toMatchObject({ files: 4, failed: 3 });

    // a test file: that file alone
    const cTest = path.join(root, 'us/statutes/demo/c.test.yaml');
    writeFileSync(cTest, caseText('us:statutes/demo/c', 'c adds three, renamed', 'c_total', 13));
    const third = await nextRun(3);
    expect(ranFiles(third)).toEqual(['c.test.yaml']);
    expect(third.results.map((r) => r.case)).toEqual(['c adds three, renamed']);

    // a new module concerns no test yet; its new test file is run and joins the selection
    writeFileSync(path.join(root, 'us/statutes/demo/d.yaml'), moduleText(rule('d_total', 'amount + 4')));
    expect((await nextRun(4)).summary.files).toBe(0);
    writeFileSync(path.join(root, 'us/statutes/demo/d.test.yaml'), caseText('us:statutes/demo/d', 'd adds four', 'd_total', 14));
    const fifth = await nextRun(5);
    expect(ranFiles(fifth)).toEqual(['d.test.yaml']);
    expect(fifth.totals).toMatchObject({ files: 5, failed: 3 });

    // fixing the module passes its dependents again
    writeFileSync(base, readFileSync(base, 'utf8').replace('amount * 3', 'amount * 2'));
    const sixth = await nextRun(6);
    expect(ranFiles(sixth)).toEqual(['a.test.yaml', 'b.test.yaml', 'base.test.yaml']);
    expect(sixth.totals).toMatchObject({ files: 5, failed: 0 });
    writeFileSync(cTest, caseText('us:statutes/demo/c', 'c now fails', 'c_total', 99));
    await nextRun(7);

    proc.kill('SIGTERM');
    const done = await proc;
    expect(done.exitCode).toBe(1); // c fails as of the last run
  }, 60_000);

  it('exits 0 on SIGTERM when everything passes, and says it is watching', async () => {
    const root = loopCorpus();
    const proc = execa('node', [CLI, 'test', '--watch', '--root', root, '--no-cache'], { cwd: root, reject: false });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not watching within 20 s: ${out}`)), 20_000);
      proc.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('for changes')) (clearTimeout(timer), resolve());
      });
    });
    proc.kill('SIGINT');
    const done = await proc;
    expect(done.exitCode).toBe(0);
    expect(done.stdout).toMatch(/4 passed, 0 failed\nwatching .* for changes \(Ctrl-C to stop\)/);
  }, 60_000);

  it('refuses --reporter with --watch (exit 2)', async () => {
    const res = await execa('node', [CLI, 'test', '--watch', '--reporter', 'junit', '--root', loopCorpus()], { reject: false });
    expect(res.exitCode).toBe(2);
    expect(res.stderr).toMatch(/--watch reports each run/);
  });
});
