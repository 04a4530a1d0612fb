import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

// `mkdir -p`, one level at a time: Node's recursive mkdir never returns for a path under /proc
// (it retries the ENOENT for ever), so every folder the project creates from a user's path goes
// through here and fails with the OS error instead.

/** Whether a path exists (under a file it does not); any other failure to look is thrown. */
function found(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw err;
  }
}

/** The levels of `dir` that do not exist yet, outermost first. */
export function missingLevels(dir: string): string[] {
  const missing: string[] = [];
  for (let level = path.resolve(dir); !found(level); level = path.dirname(level)) {
    missing.unshift(level);
    if (path.dirname(level) === level) break;
  }
  return missing;
}

/** Create `dir` and its missing parents; throws the OS error (ENOENT, ENOTDIR, EACCES, …) of the level that cannot be made. */
export function makeFolder(dir: string): void {
  for (const level of missingLevels(dir)) mkdirSync(level);
}
