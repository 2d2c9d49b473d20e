/**
 * Whether this machine can listen on the Hub's address and port, tried before `cihub serve`
 * touches its data dir. A name that does not resolve, an address that belongs to another machine,
 * or a port something already listens on used to fail only at listen: after the operator key,
 * settings and database were written (a bare "getaddrinfo ENOTFOUND" for a bad name). One
 * throwaway listener on the very host and port finds all three first. It is one try, not a lock:
 * a program that takes the port between this check and the Hub's own listen still meets serve's
 * refusal at listen.
 */
import { createServer } from 'node:net';

/** What stands in the way of listening: the host (named by --host or HUB_HOST) or the port (--port or API_PORT). */
export interface ListenProblem {
  readonly about: 'host' | 'port';
  /** A predicate on that value, such as "does not resolve to an address". */
  readonly problem: string;
}

/** Why nothing can listen on `host` at `port`; null when something can (the listener is closed again). */
export function listenProblem(host: string, port: number): Promise<ListenProblem | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(problemOf(err)));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

function problemOf(err: NodeJS.ErrnoException): ListenProblem {
  switch (err.code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
      return { about: 'host', problem: 'does not resolve to an address' };
    case 'EADDRNOTAVAIL':
      return { about: 'host', problem: 'is not an address of this machine' };
    case 'EADDRINUSE':
      return { about: 'port', problem: 'is already in use (another Hub, or another program, listens there)' };
    case 'EACCES':
      // Ports below 1024 need root (or CAP_NET_BIND_SERVICE) on Linux and older macOS.
      return { about: 'port', problem: 'needs privileges this account does not have' };
    default:
      return { about: 'host', problem: `cannot be listened on (${err.message})` };
  }
}
