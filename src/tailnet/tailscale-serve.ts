/**
 * Tailscale Serve, as far as the Hub needs it (protocols.md §6.2): does the serve config
 * publish this Hub at https://<name>/ (port 443, root path, proxied to the Hub's port on this
 * machine), and which command publishes it. Pure: the client runs the commands.
 */
import { z } from 'zod';

const HANDLER = z.object({ Proxy: z.string().max(2048).optional().catch(undefined) }).passthrough();
const SERVE_CONFIG = z
  .object({
    TCP: z
      .record(z.string(), z.object({ HTTPS: z.boolean().optional().catch(undefined) }).passthrough())
      .nullish()
      .catch(undefined),
    Web: z
      .record(z.string(), z.object({ Handlers: z.record(z.string(), HANDLER).nullish().catch(undefined) }).passthrough())
      .nullish()
      .catch(undefined),
  })
  .passthrough();

export type ServeConfig = z.infer<typeof SERVE_CONFIG>;

/** A serve config document, or null when it is not one. */
export function parseServeConfig(json: unknown): ServeConfig | null {
  const parsed = SERVE_CONFIG.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** Peers dial https://<name>/ on the default HTTPS port. */
export const SERVE_HTTPS_PORT = 443;

/** What the root handler for this node's name on 443 does. */
export type ServeVerdict =
  | { readonly kind: 'publishes' }
  /** Nothing is served at https://<name>/. */
  | { readonly kind: 'absent' }
  /** Something else is: the Hub must not replace it without the operator. */
  | { readonly kind: 'other'; readonly target: string };

const LOCAL_PROXY = /^(?:https?:\/\/)?(127\.0\.0\.1|localhost|\[::1\]):(\d+)(?:\/.*)?$/;

/**
 * For each loopback address a Serve entry can proxy to, the listen hosts (HUB_HOST, --host) at
 * which the Hub accepts that connection. Node listens dual-stack on '::'; Fastify binds every
 * address 'localhost' resolves to (lib/server.js, multipleBindings); Tailscale's proxy, dialling
 * 'localhost', tries each address it resolves to in turn. Any other host (::1 against 127.0.0.1,
 * 127.0.0.2, a LAN address) takes no connection at that address.
 */
const REACHES: Readonly<Record<string, readonly string[]>> = {
  '127.0.0.1': ['127.0.0.1', 'localhost', '0.0.0.0', '::'],
  '[::1]': ['::1', 'localhost', '::'],
  localhost: ['127.0.0.1', 'localhost', '0.0.0.0', '::', '::1'],
};

/** Where the Hub listens. */
export interface HubListen {
  readonly host: string;
  readonly port: number;
}

/**
 * Whether a Hub listening on `host` is reachable at 127.0.0.1, the one target the Hub publishes
 * (publishArgs: the form protocols.md §6.2 records, so no [::1] target is published for ::1).
 */
export function reachableFromLoopback(host: string): boolean {
  return REACHES['127.0.0.1']!.includes(host);
}

/**
 * Whether `config` proxies https://<nodeFqdn>:443/ to this Hub: its port, at a loopback address
 * the Hub listens on. With no name known, any web entry on :443 counts (the name is checked
 * elsewhere).
 */
export function serveVerdict(config: ServeConfig, nodeFqdn: string | null, hub: HubListen): ServeVerdict {
  const web = config.Web ?? {};
  for (const [hostPort, site] of Object.entries(web)) {
    const [host, sitePort] = splitHostPort(hostPort);
    if (sitePort !== String(SERVE_HTTPS_PORT)) continue;
    if (nodeFqdn !== null && host.toLowerCase().replace(/\.$/, '') !== nodeFqdn) continue;
    const root = site.Handlers?.['/'];
    if (root === undefined) continue;
    const proxy = root.Proxy ?? null;
    const match = proxy === null ? null : LOCAL_PROXY.exec(proxy);
    if (match !== null && Number(match[2]) === hub.port && REACHES[match[1]!]!.includes(hub.host)) return { kind: 'publishes' };
    return { kind: 'other', target: proxy ?? 'a handler that is not a proxy' };
  }
  return { kind: 'absent' };
}

function splitHostPort(hostPort: string): [string, string] {
  const i = hostPort.lastIndexOf(':');
  return i < 0 ? [hostPort, ''] : [hostPort.slice(0, i), hostPort.slice(i + 1)];
}

/** The arguments that publish the Hub's port at https://<name>/ in the background. */
export function publishArgs(port: number): string[] {
  return ['serve', '--bg', '--yes', `--https=${SERVE_HTTPS_PORT}`, `http://127.0.0.1:${port}`];
}

/** The same as one line an operator can paste. */
export function publishCommand(port: number, sudo: boolean): string {
  return `${sudo ? 'sudo ' : ''}tailscale ${publishArgs(port).join(' ')}`;
}

/**
 * The one-time command that lets `account` change Tailscale's settings (Serve included) on a
 * Linux host. The account is the one the Hub runs as, so the command is right whoever pastes it.
 */
export function operatorCommand(account: string): string {
  return `sudo tailscale set --operator=${account}`;
}

/** Tailscale said no because of who asked (not because of what was asked). */
export function isPermissionRefusal(stderr: string): boolean {
  return /access denied|permission denied|not permitted|--operator/i.test(stderr);
}
