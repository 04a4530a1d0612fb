import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT } from '../../support/paths.js';

// Ink and React load only when `rules explore` runs: nothing the CLI imports statically (what
// every command pays for at start) reaches them; the explore command imports its screens with
// import() once it has a terminal.

const STATIC_IMPORT = /^\s*(?:import|export)\s(?:[^'"]*?\sfrom\s)?['"]([^'"]+)['"]/gm;

/** The packages a built module reaches through static imports, following relative ones. */
function staticPackages(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)) {
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
      else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
    }
  };
  visit(entry);
  return packages;
}

const UI_PACKAGES = ['ink', 'react'];

describe('start-up cost of the explorer', () => {
  it('the CLI reaches neither Ink nor React through static imports', () => {
    const packages = staticPackages(path.join(PROJECT, 'dist/cli/main.js'));
    expect(packages).toContain('node:fs'); // the scan reaches what main.js imports (compiler/project.js)
    for (const p of UI_PACKAGES) expect(packages, p).not.toContain(p);
  });

  it('the explorer itself is where they load', () => {
    const packages = staticPackages(path.join(PROJECT, 'dist/cli/explore/run.js'));
    for (const p of UI_PACKAGES) expect(packages, p).toContain(p);
  });
});
