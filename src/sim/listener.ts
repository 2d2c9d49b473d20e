/**
 * A listening socket that can be closed and reopened on the same port, so the `refuse` fault
 * produces real connection refusals (ECONNREFUSED) and then recovers at the same URL.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from './router.js';

export class Listener {
  #handler: RequestListener;
  #host: string;
  #port: number;
  #current: Server | null = null;
  /** Every server still holding connections, including ones stopped for a refusal. */
  #servers = new Set<Server>();

  constructor(handler: RequestListener, host: string, port: number) {
    this.#handler = handler;
    this.#host = host;
    this.#port = port;
  }

  get port(): number {
    return this.#port;
  }

  get listening(): boolean {
    return this.#current !== null;
  }

  /** Starts listening; the first call fixes the port (0 picks a free one) for later reopenings. */
  async open(): Promise<number> {
    if (this.#current !== null) return this.#port;
    const server = createServer({ noDelay: true }, this.#handler);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, this.#host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#port = (server.address() as AddressInfo).port;
    this.#current = server;
    this.#servers.add(server);
    server.once('close', () => this.#servers.delete(server));
    return this.#port;
  }

  /** Stops accepting connections and drops idle kept-alive ones; requests in progress finish. */
  stopAccepting(): void {
    const server = this.#current;
    if (server === null) return;
    this.#current = null;
    server.close();
    server.closeIdleConnections();
  }

  /** Closes everything, in-progress exchanges included. */
  async close(): Promise<void> {
    const servers = [...this.#servers];
    this.#current = null;
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
    this.#servers.clear();
  }
}
