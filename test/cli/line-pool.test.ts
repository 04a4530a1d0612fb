import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { rawBatches, readBatch } from '../../cli/line-pool.js';

// The main thread cuts the input into batches of whole lines by bytes alone; the workers read
// them back as lines. Whatever the chunks a stream delivers, every line arrives once, whole, with
// its number, and blank lines are counted.

async function* chunked(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    if (cut > at) yield bytes.subarray(at, cut);
    at = Math.max(at, cut);
  }
  if (at < bytes.length) yield bytes.subarray(at);
}

/** What the lines of a text are, read the way `rules calculate --input` always read them. */
function expectedLines(text: string, linesBefore: number) {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const kept = lines.map((l, k) => ({ number: linesBefore + k + 1, line: l.endsWith('\r') ? l.slice(0, -1) : l })).filter((l) => l.line.trim() !== '');
  return { kept, blank: lines.length - kept.length };
}

describe('rawBatches and readBatch', () => {
  test('every line once, whole, numbered, whatever the chunks (multi-byte text, CRLF, blank lines, a last line without its end)', async () => {
    const line = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('', '   ', '{"a":"é€😀"}\r', '\uFEFF{"bom":1}', 'x'.repeat(5000)));
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 700 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 30 }), fc.nat(3), async (lines, finalEnd, cuts, linesBefore) => {
        const clean = lines.map((l) => l.replace(/\n/g, ' '));
        const text = clean.join('\n') + (finalEnd && clean.length ? '\n' : '');
        const bytes = new TextEncoder().encode(text);
        const got: { number: number; line: string }[] = [];
        let blank = 0;
        for await (const raw of rawBatches(chunked(bytes, cuts), linesBefore)) {
          expect(raw.bytes.byteOffset).toBe(0);
          expect(raw.bytes.buffer.byteLength).toBe(raw.bytes.length); // its own buffer: it is moved to a worker
          const batch = readBatch(raw);
          batch.lines.forEach((l, k) => got.push({ number: batch.numbers[k], line: l }));
          blank += batch.blankLines;
        }
        const expected = expectedLines(text, linesBefore);
        expect(got).toEqual(expected.kept);
        expect(blank).toBe(expected.blank);
      }),
      { numRuns: 300 },
    );
  });

  test('a batch closes at the first chunk end past 256 lines, so memory stays bounded', async () => {
    const text = Array.from({ length: 1000 }, (_, k) => `{"n":${String(k).padStart(4, '0')}}`).join('\n') + '\n'; // 11 bytes a line
    const cuts = Array.from({ length: 120 }, (_, k) => (k + 1) * 99); // chunks of 9 lines
    const batches = [];
    for await (const raw of rawBatches(chunked(new TextEncoder().encode(text), cuts), 0)) batches.push(readBatch(raw).lines.length);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(1000);
    expect(batches.length).toBe(4);
    for (const size of batches.slice(0, -1)) {
      expect(size).toBeGreaterThanOrEqual(256);
      expect(size).toBeLessThanOrEqual(256 + 9);
    }
  });
});
