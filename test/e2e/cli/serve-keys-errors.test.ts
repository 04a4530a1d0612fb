import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanEnv } from '../../support/daemon.js';
import { CLI } from '../../support/paths.js';

// What `rules serve` and `rules keys` say when the machine is in the way (a busy port, a path
// that is missing, not a folder or not writable): one line in the CLI's own flag names, exit 2,
// never a stack trace or a hang.

const base = mkdtempSync(path.join(tmpdir(), 'rules-os-errors-'));
const FILE = path.join(base, 'a-file');
const EMPTY = path.join(base, 'empty');
writeFileSync(FILE, 'not a folder\n');
mkdirSync(EMPTY);
const fresh = (label: string) => mkdtempSync(path.join(base, `${label}-`));
/** No one, root included, can create a folder under /proc. */
const HAS_PROC = existsSync('/proc/self');

const rules = (args: string[], env: Record<string, string> = {}) => execa(process.execPath, [CLI, ...args], { reject: false, env: cleanEnv(env), extendEnv: false, timeout: 30_000 });

/** Exit 2 with exactly this one line on stderr (after any progress lines), and nothing on stdout. */
async function expectOneLine(args: string[], line: string | RegExp, env: Record<string, string> = {}) {
  const res = await rules(args, env);
  const lines = res.stderr.split('\n');
  expect(res.exitCode, res.stderr).toBe(2);
  expect(lines.at(-1)).toMatch(typeof line === 'string' ? new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : line);
  expect(lines.slice(0, -1).every((l) => l.startsWith('rules serve: ')), res.stderr).toBe(true);
  expect(res.stderr).not.toMatch(/^\s+at /m);
  expect(res.stdout).toBe('');
}

describe('rules serve', () => {
  let busy: Server;
  let busyPort: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  afterAll(() => busy.close());

  const serve = (...args: string[]) => ['serve', '--port', '0', ...args];

  test('a busy port', async () => {
    await expectOneLine(['serve', '--port', String(busyPort), '--data-dir', fresh('busy')], `rules: cannot listen on 127.0.0.1:${busyPort}: the port is in use (EADDRINUSE); stop what uses it or choose another --port (0 picks a free one)`);
  });

  test('--data-dir that is a file, or under a file', async () => {
    await expectOneLine(serve('--data-dir', FILE), `rules: --data-dir ${FILE} is not a folder`);
    await expectOneLine(serve('--data-dir', path.join(FILE, 'data')), `rules: --data-dir ${path.join(FILE, 'data')}: the parent ${FILE} is not a folder`);
  });

  test.runIf(HAS_PROC)('--data-dir that cannot be created answers at once (Node\'s recursive mkdir would never return)', async () => {
    await expectOneLine(serve('--data-dir', '/proc/rules-test/data'), /^rules: --data-dir \/proc\/rules-test\/data: cannot create \/proc\/rules-test: .+ \(E[A-Z]+\)$/);
  });

  test('RULES_DATA_DIR is checked the same way', async () => {
    await expectOneLine(serve(), `rules: --data-dir ${FILE} is not a folder`, { RULES_DATA_DIR: FILE });
  });

  test('--compiled that is missing, a file, or a folder without compiled output', async () => {
    const data = fresh('compiled');
    await expectOneLine(serve('--data-dir', data, '--compiled', path.join(base, 'nowhere')), `rules: --compiled ${path.join(base, 'nowhere')} does not exist`);
    await expectOneLine(serve('--data-dir', data, '--compiled', FILE), `rules: --compiled ${FILE} is not a folder`);
    await expectOneLine(serve('--data-dir', data, '--compiled', EMPTY), `rules: --compiled ${EMPTY} holds no compiled output (no manifest.json); build it with \`rules compile --out ${EMPTY}\``);
  });

  test('--compiled with --runtime fixture (it would be ignored)', async () => {
    await expectOneLine(serve('--data-dir', fresh('fixture'), '--compiled', EMPTY, '--runtime', 'fixture'), 'rules: --compiled serves compiled packages; it cannot be combined with --runtime fixture');
  });

  test('--root that is missing or a file (it used to start with 0 packages)', async () => {
    const data = fresh('root');
    await expectOneLine(serve('--data-dir', data, '--root', '/nonexistent'), 'rules: --root /nonexistent does not exist');
    await expectOneLine(serve('--data-dir', data, '--root', FILE), `rules: --root ${FILE} is not a folder`);
    await expectOneLine(serve('--data-dir', data), 'rules: --root /nonexistent does not exist', { RULES_ROOT: '/nonexistent' });
  });

  test('--root that holds no program', async () => {
    await expectOneLine(serve('--data-dir', fresh('empty-root'), '--root', EMPTY), `rules: --root ${EMPTY}: no program compiled (program specs go under <root>/programs/<jurisdiction>/<program>/<period>.yaml)`);
  });
});

describe('rules keys', () => {
  test('--data-dir that is a file, or under a file', async () => {
    await expectOneLine(['keys', 'issue', '--id', 'ops', '--scope', '*', '--data-dir', FILE], `rules: --data-dir ${FILE} is not a folder`);
    await expectOneLine(['keys', 'issue', '--id', 'ops', '--scope', '*', '--data-dir', path.join(FILE, 'data')], `rules: --data-dir ${path.join(FILE, 'data')}: the parent ${FILE} is not a folder`);
    await expectOneLine(['keys', 'list', '--data-dir', FILE], `rules: --data-dir ${FILE} is not a folder`);
    await expectOneLine(['keys', 'revoke', 'ops', '--data-dir', FILE], `rules: --data-dir ${FILE} is not a folder`);
  });

  test.runIf(HAS_PROC)('--data-dir that cannot be created', async () => {
    await expectOneLine(['keys', 'issue', '--id', 'ops', '--scope', '*', '--data-dir', '/proc/rules-test/data'], /^rules: --data-dir \/proc\/rules-test\/data: cannot create \/proc\/rules-test: .+ \(E[A-Z]+\)$/);
  });

  test('request fields are named by their flags', async () => {
    await expectOneLine(['keys', 'issue', '--id', 'ops', '--scope', '*', '--expires-at', '2001-01-01T00:00:00Z', '--data-dir', fresh('keys')], 'rules: --expires-at: must lie in the future');
  });
});

describe('rules parity and rules validate, which calculate in-process', () => {
  // the same check as rules serve and rules explore (it used to end in a stack trace here)
  test.each(['parity', 'validate'])('%s --compiled that is missing, a file, or a folder without compiled output', async (command) => {
    await expectOneLine([command, '--compiled', path.join(base, 'nowhere')], `rules: --compiled ${path.join(base, 'nowhere')} does not exist`);
    await expectOneLine([command, '--compiled', FILE], `rules: --compiled ${FILE} is not a folder`);
    await expectOneLine([command, '--compiled', EMPTY], `rules: --compiled ${EMPTY} holds no compiled output (no manifest.json); build it with \`rules compile --out ${EMPTY}\``);
  });
});
