/**
 * The reference point the issue quotes ("a bare undici pass-through manages about 50%"): a
 * node:http server that reads the request body whole, sends it on with undici through a
 * keep-alive Agent, and pipes the answer back. No routing, no placement, no log: the floor of
 * what a Node proxy built on the Hub's own parts costs. Not part of the product.
 *
 *   node dist/bench/proxy-overhead/bare-proxy.js --upstream http://127.0.0.1:N [--port N]
 *
 * /api/inference/pool/v1/* maps to the upstream's /v1/*, as in the nginx config.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream';
import { Agent, request } from 'undici';

const PREFIX = '/api/inference/pool';
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-connection']);

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const upstream = arg('--upstream');
if (upstream === undefined) {
  process.stderr.write('bare-proxy: --upstream is required\n');
  process.exit(2);
}
const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: null });

function relay(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const path = req.url!.startsWith(PREFIX) ? req.url!.slice(PREFIX.length) : req.url!;
  request(`${upstream}${path}`, {
    method: req.method as 'POST',
    dispatcher,
    headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
    body: body.length > 0 ? body : null,
  }).then(
    (answer) => {
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
      res.writeHead(answer.statusCode, headers);
      pipeline(answer.body, res, () => {});
    },
    () => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"upstream failed"}}');
    },
  );
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => relay(req, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
server.listen(Number(arg('--port') ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
