import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SNAPSHOT_FILE } from '../names.js';

// Where an encoding root comes from: its repository, branch and release (commit), read from a
// snapshot manifest (SNAPSHOT.yaml: source, commit) or from git, whichever the root has.

export interface RootProvenance {
  root: string;
  repo: string;
  branch: string;
  commit: string | null;
}

function git(root: string, args: string[]): string | null {
  try {
    return execFileSync('git', ['-C', root, ...args], { stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).toString().trim() || null;
  } catch {
    return null;
  }
}

export function rootProvenance(root: string): RootProvenance {
  const snapshot = path.join(root, SNAPSHOT_FILE);
  if (existsSync(snapshot)) {
    const text = readFileSync(snapshot, 'utf8');
    const field = (name: string) => new RegExp(`^${name}:\\s*(.+)$`, 'm').exec(text)?.[1].trim().replace(/^['"]|['"]$/g, '');
    return { root, repo: field('source') ?? path.basename(root), branch: field('branch') ?? 'main', commit: field('commit') ?? null };
  }
  const top = git(root, ['rev-parse', '--show-toplevel']);
  const commit = top ? git(root, ['rev-parse', 'HEAD']) : null;
  const remote = top ? git(root, ['config', '--get', 'remote.origin.url']) : null;
  const branch = top ? git(root, ['rev-parse', '--abbrev-ref', 'HEAD']) : null;
  const repoName = remote ? remote.replace(/\.git$/, '').split(/[/:]/).slice(-2).join('/') : path.basename(top ?? root);
  return { root, repo: repoName, branch: branch && branch !== 'HEAD' ? branch : 'main', commit };
}
