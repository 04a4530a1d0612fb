import { readFileSync } from 'node:fs';

let version: string | undefined;

/** This package's version (package.json). */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
