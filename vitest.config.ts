import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Two projects: every test, and the API suites again on the shared Redis store (the app harness
// reads RULES_TEST_STORE), so `npm test` proves the whole API on Redis as well as in memory.
const API_SUITES = ['assumptions', 'auth', 'calculation', 'client-conventions', 'cross-cutting', 'discovery-rules', 'migration', 'parity', 'public'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // One test file per core: most files spend their time waiting on the processes they start
    // (the CLI, daemons, Redis, Chromium, tmux), and vitest's default of one per core less one
    // ran a single file at a time on 2 cores. No two files share state: each makes its own
    // folders, ports, Redis servers, tmux sockets and browser profiles. More files than cores
    // made timing-sensitive suites (the explorer's screens, Redis timeouts) fail under load.
    maxWorkers: availableParallelism(),
    projects: [
      { extends: true, test: { name: 'all', include: ['test/**/*.test.{ts,tsx}'] } },
      { extends: true, test: { name: 'api-on-redis', include: API_SUITES.map((s) => `test/e2e/api/${s}.test.ts`), env: { RULES_TEST_STORE: 'redis' } } },
    ],
  },
});
