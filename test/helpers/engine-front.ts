/**
 * A loopback front for a simulated engine: it relays every request to the engine untouched,
 * except what a test takes over. It can hold the Hub's health probes (every GET) until told to
 * let them through, which makes "the caller left during the engine probe" a state a test can
 * wait for instead of a race it hopes to win; and it can answer the next completions itself
 * (a stall after the headers, a body of any size), which the simulator does not model.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/** Answers one completion in place of the engine. */
export type CompletionHandler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

export interface EngineFront {
  readonly url: string;
  /** Holds every GET (the health probe) from now until `releaseProbes`. */
  holdProbes(): void;
  releaseProbes(): void;
  /** How many health probes (GET /api/tags) are being held now; other held GETs are not counted. */
  readonly probesHeld: number;
  /** The next POST is answered by `handler` instead of the engine. */
  takeNextCompletion(handler: CompletionHandler): void;
  close(): Promise<void>;
}

export async function startEngineFront(target: string): Promise<EngineFront> {
  let holding = false;
  const held: (() => void)[] = [];
  /** Held GETs that are health probes (/api/tags): other GETs, such as the queue report's /api/ps, are held too but not counted. */
  let heldProbes = 0;
  const takeovers: CompletionHandler[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'POST' && takeovers.length > 0) return takeovers.shift()!(req, res, body);
      if (req.method === 'GET' && holding) {
        if (req.url === '/api/tags') heldProbes += 1;
        held.push(() => relay(target, req, res, body));
      } else relay(target, req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    holdProbes: () => {
      holding = true;
    },
    releaseProbes: () => {
      holding = false;
      heldProbes = 0;
      for (const go of held.splice(0)) go();
    },
    get probesHeld() {
      return heldProbes;
    },
    takeNextCompletion: (handler) => {
      takeovers.push(handler);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const go of held.splice(0)) go();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Relays one request to the engine and its answer back, aborting the engine's side if the Hub leaves. */
function relay(target: string, req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const headers = { ...req.headers };
  delete headers.host;
  delete headers.connection;
  request(`${target}${req.url}`, { method: req.method as 'GET', headers, body: req.method === 'GET' ? undefined : body, signal: abort.signal })
    .then((answer) => {
      const out = { ...answer.headers };
      delete out.connection;
      delete out['transfer-encoding'];
      res.writeHead(answer.statusCode, out as Record<string, string>);
      answer.body.on('error', () => res.destroy());
      answer.body.pipe(res);
    })
    .catch(() => res.destroy());
}
