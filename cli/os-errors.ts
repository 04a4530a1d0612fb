import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { missingLevels } from '../compiler/make-folder.js';
import { UsageError } from './exit-codes.js';

// Operating-system errors a command expects (a path that is missing or not a folder, no
// permission, a busy port): one line naming the flag and the path, exit 2, never a stack trace.
// `rules serve` and `rules keys` check their folders up front with these.

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'is a folder',
  EEXIST: 'already exists',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EMFILE: 'too many open files',
  EADDRINUSE: 'address already in use',
  EADDRNOTAVAIL: 'not an address of this machine',
  ENOTFOUND: 'host name not found',
};

/** An error a system call raised (it names the call and an `E…` code), as opposed to a bug. */
export function isOsError(err: unknown): err is NodeJS.ErrnoException {
  const { code, syscall } = (err ?? {}) as NodeJS.ErrnoException;
  return err instanceof Error && typeof syscall === 'string' && typeof code === 'string' && code.startsWith('E');
}

/** `permission denied (EACCES)`: what went wrong, without the call and path Node puts in its message. */
export function osReason(err: NodeJS.ErrnoException): string {
  const code = err.code ?? 'EUNKNOWN';
  return `${REASONS[code] ?? err.message.split(',')[0].replace(/^E[A-Z]+:\s*/, '')} (${code})`;
}

/** A folder `flag` names that must exist already (encodings, compiled output). */
export function requireFolder(dir: string, flag: string): void {
  let stats;
  try {
    stats = statSync(dir);
  } catch (err) {
    if (isOsError(err)) throw new UsageError(err.code === 'ENOENT' ? `${flag} ${dir} does not exist` : `${flag} ${dir}: ${osReason(err)}`);
    throw err;
  }
  if (!stats.isDirectory()) throw new UsageError(`${flag} ${dir} is not a folder`);
}

/** A file `flag` names that must exist (an input to read). */
export function requireFile(file: string, flag: string): void {
  let stats;
  try {
    stats = statSync(file);
  } catch (err) {
    if (isOsError(err)) throw new UsageError(`${flag} ${file}: ${err.code === 'ENOENT' ? 'no such file' : osReason(err)}`);
    throw err;
  }
  if (!stats.isFile()) throw new UsageError(`${flag} ${file}: not a file`);
}

/**
 * A folder `flag` names that the command writes to, created when missing. Created one level at
 * a time: Node's recursive mkdir never returns for a path under /proc.
 */
export function ensureWritableFolder(dir: string, flag: string): void {
  let missing: string[];
  try {
    missing = missingLevels(dir);
  } catch (err) {
    if (isOsError(err)) throw new UsageError(`${flag} ${dir}: ${err.path}: ${osReason(err)}`);
    throw err;
  }
  const existing = missing.length ? path.dirname(missing[0]) : path.resolve(dir);
  requireFolder(existing, existing === path.resolve(dir) ? flag : `${flag} ${dir}: the parent`);
  for (const level of missing) {
    try {
      mkdirSync(level);
    } catch (err) {
      if (isOsError(err)) throw new UsageError(`${flag} ${dir}: cannot create ${level}: ${osReason(err)}`);
      throw err;
    }
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch (err) {
    if (isOsError(err)) throw new UsageError(`${flag} ${dir} is not writable: ${osReason(err)}`);
    throw err;
  }
}
