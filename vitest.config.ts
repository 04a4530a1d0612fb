import { defineConfig } from 'vitest/config';

// Two projects: every test, and the API suites again on the shared Redis store (the app harness
// reads RULES_TEST_STORE), so `npm test` proves the whole API on Redis as well as in memory.
const API_SUITES = ['assumptions', 'auth', 'calculation', 'client-conventions', 'cross-cutting', 'discovery-rules', 'migration', 'parity', 'public'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'all', include: ['test/**/*.test.{ts,tsx}'] } },
      { extends: true, test: { name: 'api-on-redis', include: API_SUITES.map((s) => `test/e2e/api/${s}.test.ts`), env: { RULES_TEST_STORE: 'redis' } } },
    ],
  },
});
