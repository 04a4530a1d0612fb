// The transport floor for bench/http.mjs: a bare node:http server in its own process that answers
// every request to a path with the bytes the daemon answered it with (read from the JSON file
// given: {path: base64 body}), after reading the request body. No routing, auth, validation or
// calculation: what loopback HTTP and the load generator alone allow on this machine.
import { readFileSync } from 'node:fs';
import http from 'node:http';

const bodies = new Map(Object.entries(JSON.parse(readFileSync(process.argv[2], 'utf8'))).map(([p, b64]) => [p, Buffer.from(b64, 'base64')]));
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const body = bodies.get(request.url);
    response.writeHead(body ? 200 : 404, { 'content-type': 'application/json; charset=utf-8', 'content-length': body?.length ?? 0 });
    response.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.error(`listening on http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
