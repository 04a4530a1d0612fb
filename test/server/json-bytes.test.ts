import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { JsonBytes } from '../../server/json-bytes.js';

// Text and bytes written one after another come out as the bytes of their concatenation, however
// the chunks fall: a piece larger than a chunk, one that just fits, many-byte characters at a
// chunk's end.

type Piece = { text: string } | { bytes: Uint8Array } | { byte: number };

const piece: fc.Arbitrary<Piece> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }).map((text) => ({ text })),
  fc.string({ unit: 'binary-ascii', maxLength: 3000 }).map((text) => ({ text })),
  fc.uint8Array({ maxLength: 700 }).map((bytes) => ({ bytes })),
  fc.integer({ min: 0, max: 127 }).map((byte) => ({ byte })),
);

const expected = (pieces: Piece[]): Buffer => Buffer.concat(pieces.map((p) => ('text' in p ? Buffer.from(p.text) : 'bytes' in p ? Buffer.from(p.bytes) : Buffer.from([p.byte]))));

function write(out: JsonBytes, pieces: Piece[]): void {
  for (const p of pieces) {
    if ('text' in p) out.text(p.text);
    else if ('bytes' in p) out.bytes(p.bytes);
    else out.byte(p.byte);
  }
}

describe('JsonBytes', () => {
  test('copy() and pieces() hold the bytes written, in order, for any pieces and any first chunk', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 1, max: 4096 }), (pieces, firstChunk) => {
        const out = new JsonBytes(firstChunk);
        write(out, pieces);
        const want = expected(pieces);
        expect(out.length).toBe(want.length);
        expect(out.copy().equals(want)).toBe(true);
        const chunks = out.pieces();
        expect(Buffer.concat(chunks).equals(want)).toBe(true);
        // each piece over memory of its own, from its start: it can be moved to another thread
        expect(new Set(chunks.map((c) => c.buffer)).size).toBe(chunks.length);
        for (const c of chunks) expect(c.byteOffset).toBe(0);
      }),
      { numRuns: 400 },
    );
  });

  test('after clear(), it writes as new, whatever was written before', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), fc.array(piece, { maxLength: 20 }), (before, after) => {
        const out = new JsonBytes(64);
        write(out, before);
        const first = out.copy();
        out.clear();
        write(out, after);
        expect(out.copy().equals(expected(after))).toBe(true);
        expect(first.equals(expected(before))).toBe(true); // a copy is not written over
      }),
      { numRuns: 200 },
    );
  });

  test('a lone surrogate is written as U+FFFD, as Buffer.from writes it', () => {
    const out = new JsonBytes(4);
    out.text('a\ud800b\udc00');
    expect(out.copy().equals(Buffer.from('a\ud800b\udc00'))).toBe(true);
  });
});
