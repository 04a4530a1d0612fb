import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { OUTPUT_SCHEMAS } from '../../../compiler/5-emit/schemas.js';
import type { Manifest } from '../../../compiler/5-emit/manifest.js';
import { CLI, PROJECT } from '../../support/paths.js';

// `rules compile` as a user runs it, and its output tree checked against the project's schemas.

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
for (const schema of OUTPUT_SCHEMAS) ajv.addSchema(schema);

function validate(schemaId: string, value: unknown): string[] {
  const check = ajv.getSchema(schemaId)!;
  return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

describe('rules compile on the bundled encodings', () => {
  let out: string;
  let manifest: Manifest;
  let stdout: string;

  beforeAll(async () => {
    out = path.join(mkdtempSync(path.join(tmpdir(), 'rules-compile-')), 'compiled');
    const res = await execa('node', [CLI, 'compile', '--out', out, '--json'], { cwd: PROJECT });
    stdout = res.stdout;
    manifest = readJson(path.join(out, 'manifest.json'));
  });

  it('reports what it compiled as JSON', () => {
    const summary = JSON.parse(stdout);
    expect(summary.failures).toEqual([]);
    expect(summary.packages.map((p: { jurisdiction: string; program_id: string }) => `${p.jurisdiction}/${p.program_id}`).sort()).toEqual(['us-ca/ca-snap', 'us-co/co-snap', 'us-ny/ny-snap', 'us/snap']);
    expect(summary.rules).toBeGreaterThan(50);
  });

  it('writes a manifest that validates and names files that exist', () => {
    expect(validate('Manifest', manifest)).toEqual([]);
    expect(manifest.roots[0].path).toBe(path.join(PROJECT, 'rulespec'));
    for (const file of [...manifest.packages.flatMap((p) => [p.package, p.graph]), ...manifest.index.shards.map((s) => s.file), manifest.index.programs]) {
      expect(existsSync(path.join(out, file)), file).toBe(true);
    }
  });

  it('every package, graph, index shard and the program list validate against their schemas', () => {
    for (const p of manifest.packages) {
      expect(validate('RuntimePackageFile', readJson(path.join(out, p.package))), p.package).toEqual([]);
      expect(validate('ProgramGraph', readJson(path.join(out, p.graph))), p.graph).toEqual([]);
    }
    for (const s of manifest.index.shards) expect(validate('IndexShard', readJson(path.join(out, s.file))), s.file).toEqual([]);
    expect(validate('ProgramList', readJson(path.join(out, manifest.index.programs)))).toEqual([]);
  });

  it('a schema violation is caught (the check can fail)', () => {
    const pkg = readJson(path.join(out, manifest.packages[0].package));
    delete pkg.sample_request;
    expect(validate('RuntimePackageFile', pkg).join()).toMatch(/sample_request/);
  });

  it('recompiling unchanged sources keeps the same files; a change replaces only what it touches', async () => {
    const root = path.join(mkdtempSync(path.join(tmpdir(), 'rules-src-')), 'rulespec');
    cpSync(path.join(PROJECT, 'rulespec'), root, { recursive: true });
    const dest = path.join(path.dirname(root), 'compiled');
    await execa('node', [CLI, 'compile', '--root', root, '--out', dest]);
    const first: Manifest = readJson(path.join(dest, 'manifest.json'));
    await execa('node', [CLI, 'compile', '--root', root, '--out', dest]);
    const second: Manifest = readJson(path.join(dest, 'manifest.json'));
    expect(second.packages.map((p) => p.package)).toEqual(first.packages.map((p) => p.package));

    const co = path.join(root, 'us-co/regulations/10-ccr-2506-1/section-4.407.31.yaml');
    writeFileSync(co, readFileSync(co, 'utf8').replace(/source: /, 'description: edited\n    source: '));
    await execa('node', [CLI, 'compile', '--root', root, '--out', dest]);
    const third: Manifest = readJson(path.join(dest, 'manifest.json'));
    const byId = (m: Manifest) => new Map(m.packages.map((p) => [`${p.jurisdiction}/${p.program_id}`, p.runtime_id]));
    expect(byId(third).get('us-co/co-snap')).not.toBe(byId(second).get('us-co/co-snap'));
    expect(byId(third).get('us-ny/ny-snap')).toBe(byId(second).get('us-ny/ny-snap'));
  });

  it('exits 1 and names the program when a spec does not compile; 2 for a missing root', async () => {
    const root = path.join(mkdtempSync(path.join(tmpdir(), 'rules-bad-')), 'rulespec');
    cpSync(path.join(PROJECT, 'rulespec'), root, { recursive: true });
    const spec = path.join(root, 'programs/us/snap/fy-2026.yaml');
    writeFileSync(spec, readFileSync(spec, 'utf8').replace('- snap_allotment', '- snap_allotmnt'));
    const res = await execa('node', [CLI, 'compile', '--root', root, '--out', path.join(root, '..', 'out')], { reject: false });
    expect(res.exitCode).toBe(1);
    expect(res.stdout).toMatch(/✗ us\/snap/);
    expect(res.stdout).toMatch(/fy-2026\.yaml:\d+:\d+: output `snap_allotmnt` is not declared/);
    const missing = await execa('node', [CLI, 'compile', '--root', '/no/such/root'], { reject: false });
    expect(missing.exitCode).toBe(2);
  });

  it.each([
    ['under a file', '/etc/hostname/out', /--out \/etc\/hostname\/out: the parent \/etc\/hostname is not a folder/],
    ['under /proc (where a recursive mkdir never returns)', '/proc/rules-out', /--out \/proc\/rules-out: cannot create \/proc\/rules-out/],
  ])('an --out it cannot write (%s) is one line and exit 2, before compiling', async (_name, out, message) => {
    const res = await execa('node', [CLI, 'compile', '--out', out], { reject: false, timeout: 20_000 });
    expect(res.exitCode).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(message);
    expect(res.stdout).toBe('');
  });
});
