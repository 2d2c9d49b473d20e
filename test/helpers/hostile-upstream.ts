/**
 * A hostile engine (or the body of a hostile peer's answer): a loopback server whose answers a
 * test scripts per path, including ones no real engine sends: `null` entries in a model list,
 * bodies of tens of MiB, a Content-Length of gigabytes. Each flood records how much of it was
 * written before the Hub hung up, so a test proves the read was abandoned, not merely survived.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

/** One flood's outcome: bytes the Hub accepted before closing, and whether it closed early. */
export interface FloodRecord {
  written: number;
  /** The Hub closed the connection before the whole flood was written. */
  cutShort: boolean;
  readonly done: Promise<void>;
}

export type HostileAnswer = (res: ServerResponse) => void;

export interface HostileServer {
  readonly url: string;
  /** Every flood this server started, oldest first. */
  readonly floods: FloodRecord[];
  close(): Promise<void>;
}

/** Answers with a JSON body as it is. */
export function json(body: unknown): HostileAnswer {
  return (res) => {
    const text = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  };
}

/** Answers with this JSON text as it is: for documents JSON.stringify cannot write, such as nesting thousands deep. */
export function rawJson(text: string): HostileAnswer {
  return (res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  };
}

/** Answers the headers (with this Content-Length) and a few bytes, then stalls until the Hub gives up. */
export function declaresLength(bytes: number): HostileAnswer {
  return (res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes) });
    res.write('{"models":[');
  };
}

const CHUNK = Buffer.from(`${'"padding-entry-that-is-not-a-model",'.repeat(1800)}`);

/**
 * Streams a JSON-looking body of `totalBytes` (chunked, no Content-Length), honouring
 * back-pressure, into `floods`. Stops when the peer hangs up.
 */
export function flood(totalBytes: number, into: FloodRecord[], prefix = '{"models":['): HostileAnswer {
  return (res) => {
    let release: () => void = () => {};
    const record: FloodRecord = { written: 0, cutShort: false, done: new Promise<void>((r) => (release = r)) };
    into.push(record);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(prefix);
    let closed = false;
    res.once('close', () => {
      closed = true;
      record.cutShort = record.written < totalBytes;
      release();
    });
    const pump = (): void => {
      while (!closed && record.written < totalBytes) {
        record.written += CHUNK.length;
        if (!res.write(CHUNK)) return void res.once('drain', pump);
      }
      if (!closed) res.end('"end"]}');
    };
    pump();
  };
}

/** Starts a server answering `routes[path]` (method ignored); 404 for anything else. */
export async function startHostileServer(routes: Record<string, HostileAnswer>, floods: FloodRecord[] = []): Promise<HostileServer> {
  const server: Server = createServer((req, res) => {
    req.resume();
    const answer = routes[(req.url ?? '').split('?')[0] ?? ''];
    if (answer) answer(res);
    else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    floods,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One connection a silent port accepted: it is never answered; `closed` turns true when the Hub gives up on it. */
export interface SilentConnection {
  closed: boolean;
  /** Resolves when the Hub closes the connection. */
  readonly gone: Promise<void>;
}

export interface SilentPort {
  readonly url: string;
  /** Every connection accepted, oldest first. */
  readonly connections: SilentConnection[];
  /** Resolves once at least `n` connections have been accepted. */
  accepted(n: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * An engine port held silently, as a firewall that drops the container's packets or a wedged
 * daemon holds it: the TCP handshake completes, the request is read, and nothing is ever written.
 * Raw TCP, so not even an HTTP server's own timeouts end a connection: only the Hub closes one.
 */
export async function startSilentPort(): Promise<SilentPort> {
  const connections: SilentConnection[] = [];
  const sockets = new Set<Socket>();
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = createNetServer((socket) => {
    sockets.add(socket);
    let release: () => void = () => {};
    const connection: SilentConnection = { closed: false, gone: new Promise<void>((r) => (release = r)) };
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.once('close', () => {
      sockets.delete(socket);
      connection.closed = true;
      release();
    });
    connections.push(connection);
    for (const w of waiters.splice(0)) {
      if (connections.length >= w.n) w.resolve();
      else waiters.push(w);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections,
    accepted: (n) => (connections.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
