// npm run fuzz [-- --seed N] [--inputs N] [--target NAME ...] [--json]
// The fuzz suites of test/e2e/fuzz/ with a large count: FUZZ_INPUTS inputs in all (default
// 1,000,000, shared among the targets by their weights), one random seed for every target,
// printed first so a failure replays with `--seed N`. Each target's progress: a status line on a
// terminal, else a line a minute (for CI logs); at the end, the inputs, time and outcome of each
// target. The targets' files run on one worker per core. Exit status: 0 no failure, 1 a target
// failed (its minimal input, seed and replay path are in vitest's report above the summary), 2
// usage error.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const project = fileURLToPath(new URL('../../..', import.meta.url));
const usage = 'usage: npm run fuzz -- [--seed N] [--inputs N] [--target NAME ...] [--json]';

function parseArgs(argv) {
  const options = { seed: process.env.FUZZ_SEED, inputs: '1000000', targets: [], json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) fail(`${arg} needs a value`);
      return v;
    };
    if (arg === '--seed') options.seed = value();
    else if (arg === '--inputs') options.inputs = value();
    else if (arg === '--target') options.targets.push(value());
    else if (arg === '--json') options.json = true;
    else fail(`unknown argument ${arg}`);
  }
  options.seed ??= String(randomInt(2 ** 31));
  if (!/^\d+$/.test(options.seed)) fail(`--seed must be a non-negative integer, got ${options.seed}`);
  if (!/^[1-9]\d*$/.test(options.inputs)) fail(`--inputs must be a positive integer, got ${options.inputs}`);
  return options;
}

function fail(message) {
  console.error(`${message}\n${usage}`);
  process.exit(2);
}

const options = parseArgs(process.argv.slice(2));
const tty = Boolean(process.stderr.isTTY) && !options.json;
const number = (n) => n.toLocaleString('en-US');
console.error(`fuzz seed ${options.seed}, ${number(Number(options.inputs))} inputs (replay: npm run fuzz -- --seed ${options.seed}${options.inputs === '1000000' ? '' : ` --inputs ${options.inputs}`})`);

const targets = new Map(); // name → {done, of, inputs?, ms?, failed?}
const started = Date.now();
let statusShown = false;

/** A finished target's outcome; none while it runs. */
const outcome = (t) => (t.end ? (t.failed ? 'FAILED' : 'ok') : undefined);

function statusLine() {
  const parts = [...targets].map(([name, t]) => `${name} ${outcome(t) ?? `${Math.floor((100 * t.done) / t.of)}%`}`);
  return `${Math.round((Date.now() - started) / 1000)} s · ${parts.join(' · ')}`;
}

function showStatus() {
  if (!tty) return;
  process.stderr.write(`\r\x1b[2K${statusLine().slice(0, (process.stderr.columns ?? 120) - 1)}`);
  statusShown = true;
}

function clearStatus() {
  if (statusShown) process.stderr.write('\r\x1b[2K');
  statusShown = false;
}

const vitest = spawn(process.execPath, [`${project}node_modules/vitest/vitest.mjs`, 'run', '--project', 'all', `--maxWorkers=${availableParallelism()}`, ...(options.targets.length ? options.targets.map((t) => `test/e2e/fuzz/${t}`) : ['test/e2e/fuzz/'])], {
  cwd: project,
  env: { ...process.env, FUZZ_SEED: options.seed, FUZZ_INPUTS: options.inputs, FUZZ_PROGRESS: '1', ...(tty ? { FORCE_COLOR: '1' } : {}) },
  stdio: ['ignore', 'pipe', 'pipe'],
});

/** Pass each line through, except the targets' progress lines, which update the status. */
function relay(stream, out) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) {
      const at = line.indexOf('@@fuzz ');
      if (at >= 0) {
        const fields = JSON.parse(line.slice(at + 7));
        targets.set(fields.target, { ...targets.get(fields.target), ...fields });
        // a failure is shown when it happens (vitest repeats it in its report at the end)
        if (fields.failure && !options.json) {
          clearStatus();
          console.error(`\nFAILED ${fields.failure}\n`);
        }
        showStatus();
        continue;
      }
      if (options.json) continue;
      clearStatus();
      out.write(`${line}\n`);
      showStatus();
    }
  });
}
relay(vitest.stdout, process.stdout);
relay(vitest.stderr, process.stderr);
const ticker = tty ? setInterval(showStatus, 1000) : setInterval(() => options.json || console.error(`fuzz: ${statusLine()}`), 60_000);

vitest.on('close', (code) => {
  clearInterval(ticker);
  clearStatus();
  const ms = Date.now() - started;
  // a target that never ended was stopped (the run interrupted, or its worker died): not a pass
  const rows = [...targets].map(([target, t]) => ({ target, inputs: t.end ? t.inputs : t.done, of: t.of, ms: t.ms ?? null, outcome: outcome(t) ?? 'stopped' }));
  const summary = { seed: Number(options.seed), inputs: rows.reduce((n, r) => n + r.inputs, 0), ms, failures: rows.filter((r) => r.outcome === 'FAILED').map((r) => r.target), stopped: rows.filter((r) => r.outcome === 'stopped').map((r) => r.target), targets: rows };
  if (options.json) console.log(JSON.stringify(summary, null, 2));
  else {
    console.log(`\nfuzz summary (seed ${options.seed})`);
    for (const r of rows) console.log(`  ${r.target.padEnd(16)} ${number(r.inputs).padStart(10)} inputs  ${(r.ms === null ? '-' : `${(r.ms / 1000).toFixed(1)} s`).padStart(9)}  ${r.outcome}`);
    const verdict = [summary.failures.length && `${summary.failures.length} failed`, summary.stopped.length && `${summary.stopped.length} stopped`].filter(Boolean).join(', ') || 'no failure';
    console.log(`  ${'all'.padEnd(16)} ${number(summary.inputs).padStart(10)} inputs  ${`${(ms / 1000).toFixed(1)} s`.padStart(9)}  ${verdict}`);
  }
  process.exit(code === 0 && !summary.failures.length && !summary.stopped.length && rows.length ? 0 : 1);
});
