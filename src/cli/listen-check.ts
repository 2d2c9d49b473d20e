/**
 * Whether this machine can listen on an address, tried before `cihub serve` touches its data dir.
 * A name that does not resolve, or an address that belongs to another machine, used to fail only
 * at listen: after the operator key, settings and database were written, as a bare
 * "getaddrinfo ENOTFOUND". A throwaway listener on an ephemeral port finds both first.
 */
import { createServer } from 'node:net';

/** Why nothing can listen on `host`, as a predicate ("does not resolve to an address"); null when something can. */
export function listenProblem(host: string): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(problemOf(err)));
    server.listen({ host, port: 0, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

function problemOf(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
      return 'does not resolve to an address';
    case 'EADDRNOTAVAIL':
      return 'is not an address of this machine';
    default:
      return `cannot be listened on (${err.message})`;
  }
}
