/**
 * A local fake of the Tailscale Admin API on loopback (protocols.md §6.3-6.4): the OAuth
 * client-credentials token endpoint and the device list. It records every request so tests
 * can read what the Hub sent, and refuses anything without the right client or token.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface AdminDevice {
  readonly name: string;
  readonly hostname?: string;
  readonly os?: string;
  readonly connectedToControl?: boolean;
}

export interface FakeAdminApi {
  readonly url: string;
  /** Each request: method, path, headers and body. */
  readonly seen: { method: string; path: string; headers: IncomingMessage['headers']; body: string }[];
  devices: AdminDevice[];
  /** Seconds the next tokens are valid for. */
  expiresIn: number;
  /** Answer every request with this status instead (simulating an outage). */
  failWith: number | null;
  tokensIssued(): number;
  close(): Promise<void>;
}

export async function startFakeAdminApi(opts: { clientId: string; clientSecret: string; devices?: AdminDevice[] }): Promise<FakeAdminApi> {
  let issued = 0;
  const valid = new Set<string>();
  const api: Omit<FakeAdminApi, 'url' | 'close'> & { url: string; close: () => Promise<void> } = {
    url: '',
    seen: [],
    devices: opts.devices ?? [],
    expiresIn: 3600,
    failWith: null,
    tokensIssued: () => issued,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const path = req.url ?? '';
      api.seen.push({ method: req.method ?? '', path, headers: req.headers, body });
      const json = (status: number, doc: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(doc));
      };
      if (api.failWith !== null) return json(api.failWith, { message: 'unavailable' });
      if (req.method === 'POST' && path === '/api/v2/oauth/token') {
        const form = new URLSearchParams(body);
        if (
          req.headers['content-type'] !== 'application/x-www-form-urlencoded' ||
          form.get('grant_type') !== 'client_credentials' ||
          form.get('client_id') !== opts.clientId ||
          form.get('client_secret') !== opts.clientSecret
        ) {
          return json(401, { message: 'invalid client' });
        }
        issued += 1;
        const token = `tskey-api-fake-${issued}`;
        valid.add(token);
        return json(200, { access_token: token, token_type: 'Bearer', expires_in: api.expiresIn, scope: 'devices:core:read' });
      }
      const match = /^\/api\/v2\/tailnet\/([^/]+)\/devices$/.exec(path);
      if (req.method === 'GET' && match) {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        if (token === undefined || !valid.has(token)) return json(401, { message: 'invalid token' });
        return json(200, {
          devices: api.devices.map((d, i) => ({
            addresses: [`100.101.2.${i + 1}`],
            id: `${9000 + i}`,
            nodeId: `nADMIN${i}CNTRL`,
            user: 'operator@example.com',
            name: d.name,
            hostname: d.hostname ?? d.name.split('.')[0],
            clientVersion: '1.90.1',
            updateAvailable: false,
            os: d.os ?? 'linux',
            tags: [],
            created: '2025-11-01T09:00:00Z',
            lastSeen: '2026-01-02T03:04:05Z',
            connectedToControl: d.connectedToControl ?? true,
            keyExpiryDisabled: true,
            expires: '0001-01-01T00:00:00Z',
            authorized: true,
            isExternal: false,
            blocksIncomingConnections: false,
          })),
        });
      }
      return json(404, { message: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  api.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return api as FakeAdminApi;
}
