import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { writeOutputTree } from '../../../compiler/5-emit/output-tree.js';
import type { Build } from '../../../compiler/build.js';
import { buildWorkspace } from '../bundled.js';

// The writer serializes each part of a build once per write; a workspace that builds again
// (`rebuilds`) has the serialized parts remembered, so an unchanged part is not serialized twice,
// while a single compile keeps no copy of its output in memory.

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
afterEach(() => vi.restoreAllMocks());

const outFolder = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rules-output-tree-'));
  dirs.push(dir);
  return path.join(dir, 'compiled');
};

/** How many parts a write serializes (the manifest apart). */
function serializations(write: () => void): number {
  const stringify = vi.spyOn(JSON, 'stringify');
  write();
  const parts = stringify.mock.calls.filter(([, , indent]) => indent === undefined).length;
  stringify.mockRestore();
  return parts;
}

describe('writeOutputTree', () => {
  const build: Build = buildWorkspace(); // the bundled encodings
  const parts = build.packages.length * 2 + build.index.size + 1; // package and graph each, every shard, the program list

  it('for a workspace that builds again, serializes an unchanged part once across writes', () => {
    const out = outFolder();
    expect(serializations(() => writeOutputTree(out, build, { durationMs: 0 }, { rebuilds: true }))).toBe(parts);
    expect(serializations(() => writeOutputTree(out, build, { durationMs: 0 }, { rebuilds: true }))).toBe(0);
  });

  it('for one compile, remembers nothing: the same parts written again are serialized again', () => {
    const out = outFolder();
    // fresh objects: the parts of `build` are remembered by the test above
    const copy: Build = { ...build, packages: build.packages.map((p) => ({ ...p, pkg: { ...p.pkg }, graph: { ...p.graph } })), index: new Map([...build.index].map(([k, v]) => [k, [...v]])), programs: [...build.programs] };
    expect(serializations(() => writeOutputTree(out, copy, { durationMs: 0 }))).toBe(parts);
    expect(serializations(() => writeOutputTree(out, copy, { durationMs: 0 }))).toBe(parts);
  });
});
