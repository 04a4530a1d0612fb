import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';

// A content-addressed file of the output tree: named by the hash of its bytes, written once
// (atomically, so that a name never holds half a file) and never rewritten.

export interface ContentFile {
  /** Its path relative to the output folder. */
  file: string;
  /** The first 16 hex digits of the sha-256 of its bytes. */
  sha: string;
}

export const contentSha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/** Write `content` to `file` through a temporary file and a rename. Its folder is made only
 *  when missing (a compile writes thousands of files into a few hundred folders). */
export function writeAtomic(file: string, content: string | Buffer): void {
  const tmp = `${file}.tmp-${process.pid}-${threadId}-${Date.now()}`;
  try {
    writeFileSync(tmp, content);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(tmp, content);
  }
  renameSync(tmp, file);
}

/** Write `bytes` as `<prefix><sha><suffix>` under `out` unless that file is already there. */
export function putContent(out: string, prefix: string, suffix: string, bytes: Buffer, sha = contentSha(bytes)): ContentFile {
  const file = `${prefix}${sha}${suffix}`;
  const abs = path.join(out, file);
  if (!existsSync(abs)) writeAtomic(abs, bytes);
  return { file, sha };
}
