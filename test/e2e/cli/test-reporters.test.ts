import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { caseText, loopCorpus, moduleText, rule, runCli } from './loop-corpus.js';
import { parseXml, type XmlElement } from './xml.js';

// `rules test --reporter junit|github` as CI runs it: JUnit XML read back with a strict XML
// reader, GitHub annotations line by line.

/** The loop corpus plus a failing case with markup in its name and a module that cannot compile. */
function corpusWithProblems(): string {
  const root = loopCorpus();
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  };
  write('us/statutes/demo/c.test.yaml', caseText('us:statutes/demo/c', 'c adds three', 'c_total', 13) + caseText('us:statutes/demo/c', 'c <wrong> & "quoted", 100%', 'c_total', 99));
  write('us/statutes/demo/broken.yaml', moduleText(rule('broken_total', 'amount +')));
  write('us/statutes/demo/broken.test.yaml', caseText('us:statutes/demo/broken', 'cannot run', 'broken_total', 1));
  return root;
}

const children = (el: XmlElement, name: string) => el.children.filter((c) => c.name === name);

describe('rules test --reporter junit', () => {
  it('writes JUnit XML a consumer reads: suites per file, a failure and an error, escaped text, lines', async () => {
    const root = corpusWithProblems();
    const res = await runCli(['test', '--root', root, '--reporter', 'junit', '--no-cache'], { cwd: root });
    expect(res.exitCode).toBe(1);
    const doc = parseXml(res.stdout);
    expect(doc.name).toBe('testsuites');
    expect(doc.attrs).toMatchObject({ name: 'rules test', tests: '6', failures: '1', errors: '1', skipped: '0' });
    expect(Number(doc.attrs.time)).toBeGreaterThan(0);
    const suites = children(doc, 'testsuite');
    expect(suites.map((s) => s.attrs.name).sort()).toEqual(['a', 'b', 'base', 'broken', 'c'].map((m) => `us/statutes/demo/${m}.test.yaml`));
    for (const s of suites) expect(Number(s.attrs.tests)).toBe(children(s, 'testcase').length);

    const c = suites.find((s) => s.attrs.name.endsWith('c.test.yaml'))!;
    expect(c.attrs).toMatchObject({ tests: '2', failures: '1', errors: '0' });
    const [good, bad] = children(c, 'testcase');
    expect(good.children).toEqual([]);
    expect(bad.attrs).toMatchObject({ name: 'c <wrong> & "quoted", 100%', classname: 'us/statutes/demo/c.test.yaml', file: 'us/statutes/demo/c.test.yaml', line: '7' });
    const [failure] = children(bad, 'failure');
    expect(failure.attrs.message).toBe('us:statutes/demo/c#c_total: expected 99, actual 13');
    expect(failure.text).toBe('us:statutes/demo/c#c_total: expected 99, actual 13');

    const broken = suites.find((s) => s.attrs.name.endsWith('broken.test.yaml'))!;
    const [error] = children(children(broken, 'testcase')[0], 'error');
    expect(error.attrs.message).toMatch(/broken\.yaml:\d+:\d+: /);
    expect(error.text).toContain('^'); // the full located diagnostic, caret line included
  });

  it('with --json, the report goes to --reporter-output and stdout keeps the JSON; without it, exit 2', async () => {
    const root = corpusWithProblems();
    const file = path.join(root, 'reports', 'junit.xml');
    const res = await runCli(['test', '--root', root, '--json', '--reporter', 'junit', '--reporter-output', file, '--no-cache'], { cwd: root });
    expect(res.exitCode).toBe(1);
    expect(JSON.parse(res.stdout).summary).toMatchObject({ cases: 6, failed: 1, errored: 1 });
    expect(parseXml(readFileSync(file, 'utf8')).attrs.tests).toBe('6');
    const clash = await runCli(['test', '--root', root, '--json', '--reporter', 'junit'], { cwd: root });
    expect(clash.exitCode).toBe(2);
    expect(clash.stderr).toMatch(/--reporter-output/);
    expect((await runCli(['test', '--root', root, '--reporter', 'tap'])).exitCode).toBe(2);
  });

  it('--reporter-output without --reporter junit or github is exit 2, not a report never written', async () => {
    const root = corpusWithProblems();
    const res = await runCli(['test', '--root', root, '--reporter-output', path.join(root, 'report.xml'), '--no-cache'], { cwd: root });
    expect(res.exitCode).toBe(2);
    expect(res.stderr.trim()).toBe('rules: --reporter-output writes the --reporter report: it needs --reporter junit or github');
  });

  it('a --reporter-output it cannot write is one line and exit 2 (no hang under /proc)', async () => {
    const root = corpusWithProblems();
    const res = await runCli(['test', '--root', root, '--reporter', 'junit', '--reporter-output', '/proc/rules-reports/junit.xml', '--no-cache'], { cwd: root });
    expect(res.exitCode).toBe(2);
    expect(res.stderr.trim()).toBe('rules: --reporter-output /proc/rules-reports: cannot create /proc/rules-reports: no such file or folder (ENOENT)');
  });
});

describe('rules test --reporter github', () => {
  it('prints one ::error annotation per case that does not pass, at its line, escaped', async () => {
    const root = corpusWithProblems();
    const res = await runCli(['test', '--root', root, '--reporter', 'github', '--no-cache'], { cwd: root });
    expect(res.exitCode).toBe(1);
    const lines = res.stdout.trim().split('\n');
    const errors = lines.filter((l) => l.startsWith('::error '));
    expect(errors).toHaveLength(2);
    expect(errors).toContain('::error file=us/statutes/demo/c.test.yaml,line=7,title=FAIL c <wrong> & "quoted"%2C 100%25::us%3Astatutes/demo/c#c_total: expected 99, actual 13'.replace('us%3A', 'us:'));
    const broken = errors.find((l) => l.includes('broken.test.yaml'))!;
    expect(broken).toMatch(/^::error file=us\/statutes\/demo\/broken\.test\.yaml,line=1,title=ERROR cannot run::.*broken\.yaml:\d+:\d+: .*%0A/);
    expect(lines.at(-1)).toBe('5 test files, 6 cases: 4 passed, 2 failed');
  });
});
