import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { type Manifest, referencedFiles } from '../../../compiler/5-emit/manifest.js';
import { serve } from '../../support/daemon.js';
import { CLI, CORPUS, HAVE_CORPUS } from '../../support/paths.js';

// The shared US corpus is the conformance suite: every companion case must pass.
// On CI the corpus is always beside the project, so its absence there is a failure.

describe('shared RuleSpec corpus', () => {
  it.runIf(HAVE_CORPUS || process.env.CI)(
    'rules test --root ../shared/rulespec-us passes every case',
    async () => {
      const res = await execa('node', [CLI, 'test', '--root', CORPUS, '--json'], { reject: false, maxBuffer: 256 * 1024 * 1024 });
      expect(res.stderr).toBe('');
      const { summary, results } = JSON.parse(res.stdout) as {
        summary: { files: number; cases: number; passed: number; failed: number; errored: number };
        results: { file: string; case: string; status: string; error?: string }[];
      };
      const broken = results.filter((r) => r.status !== 'pass').map((r) => `${r.file} › ${r.case}: ${r.error ?? 'fail'}`);
      expect(broken).toEqual([]);
      expect(summary.files).toBeGreaterThanOrEqual(3814);
      expect(summary.cases).toBeGreaterThanOrEqual(23941);
      expect(summary.passed).toBe(summary.cases);
      expect(res.exitCode).toBe(0);
    },
    180_000,
  );

  it.runIf(HAVE_CORPUS || process.env.CI)(
    'rules test --strict fails exactly the cases the reference harness rejects (rulespec.md §8.1, §8.3)',
    async () => {
      const res = await execa('node', [CLI, 'test', '--root', CORPUS, '--strict', '--json'], { reject: false, maxBuffer: 256 * 1024 * 1024 });
      expect(res.exitCode).toBe(1);
      const { results } = JSON.parse(res.stdout) as { results: { file: string; status: string; error?: string }[] };
      const perFile: Record<string, number> = {};
      for (const r of results.filter((r) => r.status !== 'pass')) {
        const key = `${path.relative(CORPUS, path.resolve(r.file))}: ${/duplicated mapping key/.test(r.error ?? '') ? 'merge override' : /outside the content roots/.test(r.error ?? '') ? 'outside content roots' : r.error}`;
        perFile[key] = (perFile[key] ?? 0) + 1;
      }
      // 3 files with an explicit key overriding a merged one (14 cases), and us-mo/manual (16 cases)
      expect(perFile).toEqual({
        'us/regulations/7-cfr/273/2/j.test.yaml: merge override': 4,
        'us-ny/regulations/18-nycrr/387/12/f/3/v/a.test.yaml: merge override': 5,
        'us-ny/regulations/18-nycrr/387/12/f/3/v/b.test.yaml: merge override': 5,
        'us-mo/manual/dss/snap/1115-000-00/1115-035-00/1115-035-25/block-1.test.yaml: outside content roots': 16,
      });
    },
    180_000,
  );
});

describe('shared RuleSpec corpus compile', () => {
  it.runIf(HAVE_CORPUS || process.env.CI)(
    'rules compile --root ../shared/rulespec-us builds a package for every program, with no failures',
    async () => {
      const out = mkdtempSync(path.join(tmpdir(), 'rules-corpus-compile-'));
      const res = await execa('node', [CLI, 'compile', '--root', CORPUS, '--out', out, '--json'], { reject: false, maxBuffer: 64 * 1024 * 1024 });
      const summary = JSON.parse(res.stdout) as { packages: { program_id: string; jurisdiction: string }[]; failures: { program: string; error: string }[]; warnings: { path: string }[]; modules: number; rules: number };
      expect(summary.failures).toEqual([]);
      // every folder is a jurisdiction (or programs/), every YAML file is read
      expect(summary.warnings).toEqual([]);
      expect(summary.packages.length).toBeGreaterThanOrEqual(131);
      expect(summary.modules).toBeGreaterThan(3800);
      expect(res.exitCode).toBe(0);

      // every file the manifest names is there, named by the hash of its bytes (most of them
      // written by the compile's writing thread: none lost, cut short or given another's name)
      const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8')) as Manifest;
      for (const file of referencedFiles(manifest)) expect(file).toContain(`${createHash('sha256').update(readFileSync(path.join(out, file))).digest('hex').slice(0, 16)}.`);

      // every program id is a URL slug, unique within its jurisdiction (issue 11)
      const ids = summary.packages.map((p) => `${p.jurisdiction}/${p.program_id}`);
      for (const { program_id } of summary.packages) expect(program_id).toMatch(/^[a-z0-9][a-z0-9_-]{0,63}$/);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expect.arrayContaining(['us-co/co-snap', 'us-co/co-tanf', 'us/oasdi-wage-tax', 'us/us-tariff-schedule-ch01']));

      // and a daemon serves each one's detail and graph at /v1/runtime/packages/{jurisdiction}/{program_id}
      const key = 'corpus-conformance-key-0001-padded-to-32+';
      const served = await serve({ args: ['--compiled', out, '--store', 'memory'], keys: [{ id: 'reader', key, scopes: ['rules:read'], rate_limit: { requests: 1_000_000, window_seconds: 60 } }] });
      try {
        const get = async (url: string) => {
          const response = await fetch(`${served.url}${url}`, { headers: { 'x-api-key': key } });
          return { status: response.status, body: (await response.json()) as { data: Record<string, any> } };
        };
        const programs = (await get('/v1/programs')).body.data.programs as { id: string }[];
        for (const { id } of programs) expect(id).toMatch(/^[a-z0-9][a-z0-9_-]{0,63}$/);
        for (const { jurisdiction, program_id } of summary.packages) {
          const detail = await get(`/v1/runtime/packages/${jurisdiction}/${program_id}`);
          expect(detail.status, `${jurisdiction}/${program_id}`).toBe(200);
          expect(detail.body.data.package).toMatchObject({ jurisdiction, program_id });
          const graph = await get(`/v1/runtime/packages/${jurisdiction}/${program_id}/graph`);
          expect(graph.status, `${jurisdiction}/${program_id} graph`).toBe(200);
          expect(Array.isArray(graph.body.data.graph.rules)).toBe(true);
        }
      } finally {
        await served.stop();
        rmSync(out, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
