import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Where this package lives: the nearest folder above this module with a package.json, so the
// bundled encodings and fixtures are found both from source (tests) and from dist/ (the CLI).

function findProjectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (path.dirname(dir) !== dir && !existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

export const PROJECT_ROOT = findProjectRoot();
/** Our own encodings, served by default. */
export const BUNDLED_ROOT = path.join(PROJECT_ROOT, 'rulespec');
export const FIXTURES_DIR = path.join(PROJECT_ROOT, 'fixtures');

/** This package's version (package.json), recorded in compiled output and shown by the CLI. */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
