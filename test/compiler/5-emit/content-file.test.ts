import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contentSha, putContent, writeAtomic } from '../../../compiler/5-emit/content-file.js';

// Content-addressed files: named by their hash, written once through a temporary file, into
// folders made only when missing.

const dir = mkdtempSync(path.join(tmpdir(), 'rules-content-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('putContent', () => {
  it('writes a file named by its hash, making its folders when missing, and leaves no temporary file', () => {
    const bytes = Buffer.from('{"a":1}');
    const written = putContent(dir, 'packages/us/snap/', '.package.json', bytes);
    expect(written).toEqual({ file: `packages/us/snap/${contentSha(bytes)}.package.json`, sha: contentSha(bytes) });
    expect(readFileSync(path.join(dir, written.file), 'utf8')).toBe('{"a":1}');
    // a second file in the folder made by the first
    const other = putContent(dir, 'packages/us/snap/', '.graph.json', Buffer.from('[]'));
    expect(readFileSync(path.join(dir, other.file), 'utf8')).toBe('[]');
    expect(readFileSync(path.join(dir, written.file), 'utf8')).toBe('{"a":1}');
  });
});

describe('writeAtomic', () => {
  it('replaces a file whole, in a folder it makes when missing', () => {
    const file = path.join(dir, 'deep', 'er', 'manifest.json');
    writeAtomic(file, 'one');
    writeAtomic(file, 'two');
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect(existsSync(path.join(dir, 'deep', 'er'))).toBe(true);
  });

  it('reports a folder it cannot make', () => {
    const blocked = path.join(dir, 'a-file');
    writeAtomic(blocked, 'x');
    expect(() => writeAtomic(path.join(blocked, 'inside.json'), 'y')).toThrow(/ENOTDIR|EEXIST/);
  });
});
