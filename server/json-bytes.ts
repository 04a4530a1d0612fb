// JSON written straight into UTF-8 buffers, a chunk at a time. An answer is mostly text that is
// the same in every household (a trace entry's rule and sources, an assumption whole): kept as
// bytes (response-json.ts) and copied in, so that no string of the whole answer is built, then
// flattened and encoded. In the daemon's profile of a 25-entry batch, flattening and encoding the
// answers' strings had cost more than building them.

/** Chunks after the first double in size, up to this. */
const MAX_CHUNK = 1024 * 1024;
/** Texts up to this long are copied a character at a time when they are ASCII (JsonBytes#ascii). */
const SHORT_TEXT = 64;

/** Text and bytes written one after another into buffers of their own. */
export class JsonBytes {
  /** Chunks filled, each cut to what was written in it. */
  private filled: Buffer[] = [];
  private filledBytes = 0;
  private chunk: Buffer;
  private end = 0;
  private nextChunk: number;

  /** `firstChunk`: the size of the first buffer (a good guess at the whole saves chunks). */
  constructor(private readonly firstChunk = 64 * 1024) {
    this.nextChunk = firstChunk;
    this.chunk = this.newChunk(0);
  }

  /** A chunk of its own memory (never a slice of Node's shared pool: a chunk may move to another thread). */
  private newChunk(atLeast: number): Buffer {
    const chunk = Buffer.allocUnsafeSlow(Math.max(this.nextChunk, atLeast));
    this.nextChunk = Math.min(this.nextChunk * 2, MAX_CHUNK);
    return chunk;
  }

  /** Room for `bytes` more: the chunk is closed and a new one begun when they do not fit. */
  private room(bytes: number): void {
    if (this.end + bytes <= this.chunk.length) return;
    if (this.end) {
      this.filled.push(this.chunk.subarray(0, this.end));
      this.filledBytes += this.end;
    }
    this.chunk = this.newChunk(bytes);
    this.end = 0;
  }

  /** One byte (an ASCII character's code). */
  byte(code: number): void {
    this.room(1);
    this.chunk[this.end++] = code;
  }

  bytes(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.chunk.set(bytes, this.end);
    this.end += bytes.length;
  }

  /** A string's UTF-8, as Buffer.from writes it (a lone surrogate as U+FFFD). */
  text(text: string): void {
    // a UTF-16 unit is at most 3 bytes: counted exactly only when that much room is not left
    if (this.end + text.length * 3 > this.chunk.length) this.room(Buffer.byteLength(text));
    if (text.length <= SHORT_TEXT && this.ascii(text)) return;
    this.end += this.chunk.write(text, this.end);
  }

  /** A short text copied here a character at a time if it is ASCII (a number, a key), which costs
   *  less than a call into Buffer#write; false, with nothing written, if it is not. */
  private ascii(text: string): boolean {
    const { chunk } = this;
    let at = this.end;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) return false;
      chunk[at++] = code;
    }
    this.end = at;
    return true;
  }

  /** Bytes written so far. */
  get length(): number {
    return this.filledBytes + this.end;
  }

  /** What was written, a buffer per chunk, each over memory of its own (to be moved to another thread). */
  pieces(): Buffer[] {
    return this.end ? [...this.filled, this.chunk.subarray(0, this.end)] : [...this.filled];
  }

  /** What was written, copied into one buffer of its size (the chunks can then be written over: clear()). */
  copy(): Buffer {
    const out = Buffer.allocUnsafe(this.length);
    let at = 0;
    for (const piece of this.pieces()) at += piece.copy(out, at);
    return out;
  }

  /** Start again, in the last chunk (the largest), unless it has grown past the largest size a chunk is given. */
  clear(): void {
    this.filled = [];
    this.filledBytes = 0;
    this.end = 0;
    if (this.chunk.length > MAX_CHUNK) this.chunk = Buffer.allocUnsafeSlow(MAX_CHUNK);
    this.nextChunk = Math.max(this.firstChunk, this.chunk.length);
  }
}
