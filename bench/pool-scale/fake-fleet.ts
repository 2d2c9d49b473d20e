/**
 * A fleet of fake peer Hubs in this process: one node:http server per peer on 127.0.0.1, each with
 * its own Ed25519 identity. Each checks the real Hub's signature on every call with the project's
 * own verifySignedRequest (the Hub's key pinned, nonces remembered), and answers:
 *   GET  /api/inference/pool/capabilities         the peer's capabilities document (peer-document.ts)
 *   POST /api/inference/pool/local/v1/chat/completions  a fixed, small chat.completion
 * An unsigned or badly signed call gets a 403 and is counted, so a run can say every poll was signed.
 * The fleet's CPU is this process's, never the Hub's: the Hub runs in its own process.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { verifySignedRequest, type NonceMemory } from '../../src/peer-auth/verify-signed.js';
import { CHAT_MODEL, PEER_MODELS_DEFAULT, peerDocument } from './peer-document.js';

export const FLEET_TAILNET = 'tail0.ts.net';

export interface FakePeer {
  readonly index: number;
  readonly name: string;
  readonly nodeUuid: string;
  /** Raw Ed25519 public key, base64url: the form hub_pool_peer.peer_public_key holds. */
  readonly publicKey: string;
  readonly origin: string;
  readonly counts: { polls: number; forwards: number; refused: number };
}

export interface FakeFleet {
  readonly peers: readonly FakePeer[];
  close(): Promise<void>;
}

/** The raw 32-byte public key, base64url (node-identity.ts stores it this way). */
function rawPublicKey(key: KeyObject): string {
  const jwk = key.export({ format: 'jwk' }) as { x?: string };
  if (typeof jwk.x !== 'string') throw new Error('not an Ed25519 key');
  return jwk.x;
}

/** Nonces seen within the skew window; the Hub never repeats one, so this only has to remember. */
function nonceMemory(): NonceMemory {
  const seen = new Map<string, number>();
  return {
    remember(key, nowMs) {
      if (seen.has(key)) return false;
      if (seen.size > 100_000) for (const [k, at] of seen) if (nowMs - at > 10 * 60_000) seen.delete(k);
      seen.set(key, nowMs);
      return true;
    },
  };
}

const COMPLETION = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1_764_633_600,
    model: CHAT_MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
  }),
);

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/** `models`: how many models each fake peer lists (peer-document.ts). */
export async function startFakeFleet(count: number, hub: () => { nodeUuid: string; publicKey: string }, models = PEER_MODELS_DEFAULT): Promise<FakeFleet> {
  const servers: Server[] = [];
  const peers: FakePeer[] = [];
  for (let index = 0; index < count; index++) {
    const pair = generateKeyPairSync('ed25519');
    const nodeUuid = randomUUID();
    const counts = { polls: 0, forwards: 0, refused: 0 };
    const nonces = nonceMemory();
    const capabilities = Buffer.from(JSON.stringify(peerDocument(nodeUuid, index, 0, models)));
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      void (async () => {
        const body = await readBody(req);
        const h = hub();
        const verdict = verifySignedRequest({
          headers: req.headers,
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          body,
          myUuid: nodeUuid,
          nowMs: Date.now(),
          peerKey: (uuid) => (uuid === h.nodeUuid ? h.publicKey : null),
          nonces,
        });
        if (!verdict.ok) {
          counts.refused++;
          res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ error: verdict.reason }));
          return;
        }
        if (req.method === 'GET' && req.url === '/api/inference/pool/capabilities') {
          counts.polls++;
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': capabilities.length }).end(capabilities);
          return;
        }
        if (req.method === 'POST' && req.url === '/api/inference/pool/local/v1/chat/completions') {
          counts.forwards++;
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': COMPLETION.length, 'x-hub-pool-backend': 'ollama' }).end(COMPLETION);
          return;
        }
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      })().catch(() => res.destroy());
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const port = (server.address() as AddressInfo).port;
    peers.push({
      index,
      name: `bench-peer-${index}.${FLEET_TAILNET}`,
      nodeUuid,
      publicKey: rawPublicKey(pair.publicKey),
      origin: `http://127.0.0.1:${port}`,
      counts,
    });
  }
  return {
    peers,
    close: async () => {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
    },
  };
}
