import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serve, type Served } from '../../support/daemon.js';
import { sleep } from '../../support/lab.js';

// A slow-connection attack on a real daemon: thousands of connections from one address, each
// sending a byte every second, while another client checks /v1/health. The limits are the
// RULES_* settings, set short so the test is quick.

const ATTACKER = '127.0.0.2';
const CONNECTIONS = 3_000;
const SHARE = 50;
const REQUEST_TIMEOUT_MS = 3_000;

describe(`${CONNECTIONS} slow connections from ${ATTACKER}`, () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve({
      args: ['--store', 'memory'],
      env: {
        RULES_LOG_FORMAT: 'json',
        RULES_HEADERS_TIMEOUT_MS: '1500',
        RULES_BODY_TIMEOUT_MS: '2000',
        RULES_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        RULES_MAX_CONNECTIONS_PER_CLIENT: String(SHARE),
      },
    });
  });
  afterAll(async () => {
    expect(await served.stop()).toBe(0);
  });

  test('health answers within 1 s for another client throughout; every attacking connection is closed; the log names the address once', async () => {
    const { hostname, port } = new URL(served.url);
    const sockets: Socket[] = [];
    let closed = 0;
    const drip = setInterval(() => {
      for (const s of sockets) if (s.writable) s.write('x');
    }, 1_000);
    const attack = async () => {
      for (let wave = 0; wave < CONNECTIONS / 500; wave++) {
        for (let i = 0; i < 500; i++) {
          const s = connect({ host: hostname, port: Number(port), localAddress: ATTACKER });
          s.on('error', () => undefined);
          s.on('close', () => closed++);
          // a request whose body comes a byte at a time (half of them), or headers a byte at a time
          s.write(i % 2 ? 'POST /v1/keys/trial HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n' : 'POST /v1/keys/trial HTTP/1.1\r\n');
          sockets.push(s);
        }
        await sleep(250);
      }
    };

    const latencies: number[] = [];
    let probing = true;
    const probe = async () => {
      while (probing) {
        const started = performance.now();
        const res = await fetch(`${served.url}/v1/health`, { signal: AbortSignal.timeout(5_000) });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
        await sleep(100);
      }
    };
    const probing$ = probe();
    await attack();
    // every connection over the share is closed at once; the rest when their requests time out
    const deadline = Date.now() + REQUEST_TIMEOUT_MS + 5_000;
    while (closed < CONNECTIONS && Date.now() < deadline) await sleep(100);
    probing = false;
    await probing$;
    clearInterval(drip);

    expect(closed).toBe(CONNECTIONS);
    expect(latencies.length).toBeGreaterThan(20);
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    const lines = served
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; client?: string });
    const share = lines.filter((l) => l.msg.includes('RULES_MAX_CONNECTIONS_PER_CLIENT'));
    expect(share).toEqual([expect.objectContaining({ client: ATTACKER, msg: expect.stringContaining(`client ${ATTACKER} holds its ${SHARE} open connections`) })]);
    expect(lines.some((l) => l.client === ATTACKER && /did not arrive in time|paused/.test(l.msg))).toBe(true);
  }, 60_000);
});
