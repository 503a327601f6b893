// The benchmark's floor for a Node proxy (issue 11): the least a reverse
// proxy on Node does per HTTP call — node:http in, the body gathered, one
// undici Pool request to the agent (kept-alive connections), the answer
// gathered and written back with its status and content type. No parsing,
// routing, policy, logging or metrics. Measured beside nginx, it shows how
// much of the gateway's CPU per call any Node proxy pays on this machine.
// Prints {"http":"http://127.0.0.1:<port>"} when listening.
import { createServer } from 'node:http';
import { Pool } from 'undici';

const upstream = new URL(process.argv[2] ?? '');
const pool = new Pool(upstream.origin, { connections: 64 });
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    pool
      .request({
        path: req.url ?? '/',
        method: (req.method ?? 'POST') as 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json', 'a2a-version': '1.0' },
        body: Buffer.concat(chunks),
      })
      .then(async (r) => {
        const body = Buffer.from(await r.body.arrayBuffer());
        const type = r.headers['content-type'];
        res.writeHead(r.statusCode, { 'content-type': typeof type === 'string' ? type : 'application/json' });
        res.end(body);
      })
      .catch(() => res.writeHead(502).end());
  });
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ http: `http://127.0.0.1:${port}` })}\n`);
});
