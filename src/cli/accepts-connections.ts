/**
 * Whether anything accepts a TCP connection at a URL's host and port: the one check left for a
 * hub.json an older Hub wrote, which records no boot id to ask for. A live pid alone is no proof
 * that Hub runs: after a crash and a reboot its pid is often another process's, and `cihub serve`
 * refusing then held a supervisor's restarts until someone removed hub.json by hand.
 */
import { connect } from 'node:net';

/** A listener on this machine accepts at once, even one whose process is stopped (the kernel does). */
export const ACCEPT_CHECK_TIMEOUT_MS = 2_000;

/** True when a connection was accepted; false when refused, unreachable or not answered in time. */
export function acceptsConnections(url: string, timeoutMs = ACCEPT_CHECK_TIMEOUT_MS): Promise<boolean> {
  const parsed = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: parsed.hostname.replace(/^\[|\]$/g, ''), port: portOf(parsed) });
    const done = (accepted: boolean) => {
      socket.destroy();
      resolve(accepted);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The port a URL names; the URL parser leaves it out when it is the scheme's own (80, 443). */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}
