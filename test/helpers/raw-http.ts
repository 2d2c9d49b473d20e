/**
 * HTTP spoken by hand over a loopback socket, for the tests that attack the Hub's edge: heads
 * without their bodies, half a head, malformed requests, idle connections. Nothing is added
 * that the test did not write.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { eventually } from './hub-process.js';

export interface RawAnswer {
  /** The status line's code; null when the Hub closed without answering. */
  readonly status: number | null;
  readonly head: string;
  readonly body: string;
  /** Whether the Hub closed the connection (rather than the test giving up on it). */
  readonly closedByHub: boolean;
}

/** An open connection to the Hub whose answer can be awaited; `write` sends more of the request. */
export interface RawConnection {
  readonly socket: Socket;
  write(text: string | Buffer): void;
  /** Resolves once a whole answer arrived (by its content-length) or the Hub closed the connection. */
  answer(): Promise<RawAnswer>;
  /** Resolves when the Hub closes the connection. */
  closed(): Promise<RawAnswer>;
  destroy(): void;
}

export function openRaw(url: string, opts: { localAddress?: string } = {}): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: hostname, ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) });
    let raw = Buffer.alloc(0);
    let ended = false;
    const waiters: Array<() => void> = [];
    const notify = () => waiters.splice(0).forEach((w) => w());
    socket.on('data', (d: Buffer) => {
      raw = Buffer.concat([raw, d]);
      notify();
    });
    socket.on('close', () => {
      ended = true;
      notify();
    });
    socket.on('error', () => undefined);
    const parse = (): RawAnswer => {
      const text = raw.toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const head = split < 0 ? text : text.slice(0, split);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
      return { status: status ? Number(status[1]) : null, head, body: split < 0 ? '' : text.slice(split + 4), closedByHub: ended };
    };
    const complete = (): boolean => {
      const a = parse();
      if (a.status === null || !raw.includes('\r\n\r\n')) return false;
      const length = /content-length:\s*(\d+)/i.exec(a.head);
      return length !== null && Buffer.byteLength(a.body) >= Number(length[1]);
    };
    const until = (done: () => boolean) =>
      new Promise<RawAnswer>((res) => {
        const check = () => (done() ? res(parse()) : waiters.push(check));
        check();
      });
    socket.once('connect', () =>
      resolve({
        socket,
        write: (text) => socket.write(text),
        answer: () => until(() => ended || complete()),
        closed: () => until(() => ended),
        destroy: () => socket.destroy(),
      }),
    );
    socket.once('error', reject);
  });
}

/** Sends `text` on a fresh connection and resolves with the answer. */
export async function rawRequest(url: string, text: string | Buffer): Promise<RawAnswer> {
  const c = await openRaw(url);
  c.write(text);
  const a = await c.answer();
  c.destroy();
  return a;
}

/** The `code` of an error body in any of the Hub's shapes (operator, OpenAI, Ollama). */
export function errorCode(body: string): string | null {
  try {
    const json = JSON.parse(body) as { code?: unknown; error?: { code?: unknown } };
    const code = typeof json.error === 'object' && json.error !== null ? json.error.code : json.code;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

/**
 * Opens a chat request whose body stops short, and resolves once the Hub counts it in progress:
 * Expect: 100-continue makes Node answer "100 Continue" as it hands the request to the Hub. Only
 * the test (destroying the socket) or the end of a drain closes it.
 */
export async function requestLeftOpen(hub: { readonly url: string }): Promise<Socket> {
  const { hostname, port } = new URL(hub.url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  socket.write(
    `POST /api/inference/pool/api/chat HTTP/1.1\r\nHost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: 100\r\nexpect: 100-continue\r\n\r\n`,
  );
  await eventually(() => received.startsWith('HTTP/1.1 100 Continue'), 'the Hub to take the request');
  socket.write('{"model":');
  return socket;
}

/**
 * An app that asks `hub` for a chat with `model`, reads the first bytes of the answer and then
 * nothing more, while keeping its connection open: alive on the wire, asleep to the Hub. The
 * caller destroys the socket when done.
 */
export async function chatThatStopsReading(hub: { readonly url: string }, model: string): Promise<Socket> {
  const { hostname, port } = new URL(hub.url);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.setNoDelay(true);
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] });
  socket.write(
    `POST /api/inference/pool/api/chat HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  await once(socket, 'data');
  socket.pause();
  return socket;
}
