import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// CLI tests run bin/rules.js, which loads dist/: build it once (`npm run build`'s two steps: tsc,
// then the one-file `rules calculate`) so tests never see a stale CLI.
export default function setup(): void {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [`${root}bin/bundle-calculate.mjs`], { cwd: root, stdio: 'inherit' });
}
