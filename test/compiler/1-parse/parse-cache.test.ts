import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ParseCache } from '../../../compiler/1-parse/parse-cache.js';

// The parse cache's folder: missing means an empty cache, unreadable is said, never assumed empty.

const dir = mkdtempSync(path.join(tmpdir(), 'rules-parse-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ParseCache', () => {
  it('reads a missing folder as an empty cache, without a warning', () => {
    const cache = new ParseCache(path.join(dir, 'not-yet'));
    expect(cache.parsed('test', 'a.yaml', 'h', () => 1, () => false)).toBe(1);
    expect(cache.drain().warnings).toEqual([]);
  });

  it('reports a folder it cannot read, and parses every file', () => {
    const notAFolder = path.join(dir, 'a-file');
    writeFileSync(notAFolder, 'not a folder\n');
    const cache = new ParseCache(notAFolder);
    expect(cache.parsed('test', 'a.yaml', 'h', () => 2, () => false)).toBe(2);
    expect(cache.drain().warnings).toEqual([{ path: notAFolder, reason: expect.stringMatching(/^parse-cache folder not readable \(ENOTDIR.*\); every file is parsed$/) }]);
  });
});
