/**
 * Tailscale Serve's part on one host, as a process of its own in that host's namespace: it
 * terminates TLS at https://<name>:443 with the test CA's certificate for the name, and proxies
 * each request to whatever the Hub published with `tailscale serve --bg` (the fake CLI writes
 * that into its state file, test/fixtures/fake-tailscale.mjs). Nothing published, nothing
 * proxied: a 502, as Serve has no handler to give. Like Serve it keeps the Host header and adds
 * X-Forwarded-For with the caller's address, so the Hub sees its callers the way it does behind
 * the real thing.
 *
 * Usage: node serve-stand-in.js <json: { name, address, port, certPath, keyPath, statePath }>
 * Prints one line `listening` when ready.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:https';

interface Options {
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly certPath: string;
  readonly keyPath: string;
  readonly statePath: string;
}

const opts = JSON.parse(process.argv[2] ?? '{}') as Options;

/** The proxy target the Hub published for <name>:<port>, or null. */
function publishedTarget(): URL | null {
  try {
    const state = JSON.parse(readFileSync(opts.statePath, 'utf8')) as { serve?: { Web?: Record<string, { Handlers?: Record<string, { Proxy?: string }> }> } };
    const proxy = state.serve?.Web?.[`${opts.name}:${opts.port}`]?.Handlers?.['/']?.Proxy;
    return typeof proxy === 'string' ? new URL(proxy) : null;
  } catch {
    return null;
  }
}

function forwardedHeaders(headers: IncomingHttpHeaders, remote: string): IncomingHttpHeaders {
  const prior = headers['x-forwarded-for'];
  return { ...headers, 'x-forwarded-for': prior ? `${String(prior)}, ${remote}` : remote, 'x-forwarded-proto': 'https' };
}

const server = createServer({ cert: readFileSync(opts.certPath), key: readFileSync(opts.keyPath) }, (req, res) => {
  const target = publishedTarget();
  if (target === null) {
    res.writeHead(502, { 'content-type': 'text/plain' }).end('nothing is served at this name\n');
    return;
  }
  const upstream = httpRequest(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: forwardedHeaders(req.headers, req.socket.remoteAddress ?? '') },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('the published target did not answer\n');
    else res.destroy();
  });
  // A caller that hangs up is passed on, so the Hub sees the hang-up as it would behind Serve.
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
});

server.listen(opts.port, opts.address, () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
