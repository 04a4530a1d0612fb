import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { makeFolder } from './make-folder.js';
import path from 'node:path';
import { type Manifest, referencedFiles } from './5-emit/manifest.js';

// What an output folder was last compiled from (`rules compile` keeps it in the cache folder,
// `rules serve` beside its data folder's output): a whole-tree compile whose inputs hash
// (Workspace.inputsHash: encodings, specs and the compiler's own code) is the one recorded, into a
// folder whose manifest is still the one written then and whose files are all there, has nothing
// to do. Anything else compiles.

interface Stamp {
  inputs: string;
  manifest_sha256: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** Where the stamp of an output folder lives under the cache folder. */
export const stampFile = (cacheDir: string, out: string) => path.join(cacheDir, 'compile', `${sha256(path.resolve(out)).slice(0, 32)}.json`);

/** The output folder's manifest when it was compiled from exactly these inputs. */
export function upToDate(file: string, inputs: string, out: string): Manifest | undefined {
  const manifestFile = path.join(out, 'manifest.json');
  if (!existsSync(file) || !existsSync(manifestFile)) return undefined;
  try {
    const stamp = JSON.parse(readFileSync(file, 'utf8')) as Stamp;
    const manifest = readFileSync(manifestFile);
    if (stamp.inputs !== inputs || stamp.manifest_sha256 !== sha256(manifest)) return undefined;
    const m = JSON.parse(manifest.toString()) as Manifest;
    // every file the manifest names must still be there
    return [...referencedFiles(m)].every((f) => existsSync(path.join(out, f))) ? m : undefined;
  } catch {
    return undefined; // an unreadable stamp or manifest: compile
  }
}

export function recordStamp(file: string, inputs: string, out: string): void {
  const stamp: Stamp = { inputs, manifest_sha256: sha256(readFileSync(path.join(out, 'manifest.json'))) };
  makeFolder(path.dirname(file));
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(stamp));
  renameSync(tmp, file);
}
