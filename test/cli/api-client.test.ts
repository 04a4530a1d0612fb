import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, ApiUnreachable, dataOf } from '../../cli/api-client.js';

// The CLI's one client against a daemon, against a real HTTP server that answers every way a
// daemon, a proxy in front of it, or the wrong service can: each answer is read, never thrown at.

let server: Server;
let url: string;
const seen: { key?: string; contentType?: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ key: req.headers['x-api-key'] as string, contentType: req.headers['content-type'], body });
      const reply = (status: number, type: string, text: string) => res.writeHead(status, { 'content-type': type }).end(text);
      if (req.url === '/ok') return reply(200, 'application/json', JSON.stringify({ status: 'ok', data: { n: 1 }, meta: {} }));
      if (req.url === '/refused') return reply(403, 'application/json', JSON.stringify({ status: 'error', error: { code: 'insufficient_scope', message: 'needs admin:parity' } }));
      if (req.url === '/migration') return reply(400, 'application/json', JSON.stringify({ status: 'error', message: 'axes are not supported', result: null }));
      if (req.url === '/proxy') return reply(502, 'text/html', '<html><body>Bad Gateway</body></html>');
      if (req.url === '/empty') return reply(500, 'text/plain', '');
      if (req.url === '/slow') return void setTimeout(() => reply(200, 'application/json', '{}'), 2_000);
      reply(404, 'application/json', JSON.stringify({ status: 'error', error: { code: 'not_found', message: 'no route' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('apiClient', () => {
  it('sends the key, and a JSON body only when there is one; drops trailing slashes from the URL', async () => {
    const api = apiClient(`${url}//`, 'k-123');
    expect(api.base).toBe(url);
    const answer = await api.call('POST', '/ok', { a: 1 });
    expect(dataOf(answer)).toEqual({ n: 1 });
    expect(answer.error).toBe('');
    await api.call('GET', '/ok');
    expect(seen.slice(-2)).toEqual([
      { key: 'k-123', contentType: 'application/json', body: '{"a":1}' },
      { key: 'k-123', contentType: undefined, body: '' },
    ]);
  });

  it("reads an error envelope's code and message, and the migration endpoint's message", async () => {
    const api = apiClient(url, 'k');
    expect(await api.call('GET', '/refused')).toMatchObject({ status: 403, ok: false, code: 'insufficient_scope', error: 'insufficient_scope: needs admin:parity' });
    const migration = await api.call('POST', '/migration', {});
    expect(migration).toMatchObject({ status: 400, error: 'axes are not supported' });
    expect(dataOf(migration)).toBeUndefined();
  });

  it('turns an answer that is not JSON, or is empty, into an error naming what came back', async () => {
    const api = apiClient(url, 'k');
    expect(await api.call('GET', '/proxy')).toMatchObject({ status: 502, body: null, error: 'not a JSON answer (text/html)' });
    expect(await api.call('GET', '/empty')).toMatchObject({ status: 500, body: null, error: 'an empty answer' });
  });

  it('gives up after its time limit, and on a port nothing listens on, with ApiUnreachable', async () => {
    await expect(apiClient(url, 'k', 200).call('GET', '/slow')).rejects.toThrow(new ApiUnreachable(`cannot reach ${url}: no answer within 0.2 s`));
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(apiClient(`http://127.0.0.1:${port}`, 'k').call('GET', '/ok')).rejects.toThrow(/^cannot reach http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
  });
});
