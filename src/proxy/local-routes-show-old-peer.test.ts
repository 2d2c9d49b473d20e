/**
 * POST /api/show asked of peers that predate their /local/api/show route. Such a peer answers
 * 404 (it has no route by that name), which must neither be relayed to the app as the model's
 * description nor end the lookup: the next peer holding the model is asked, and when none can
 * describe it the app gets the same 502 it got before peers were asked at all (spec, "Endpoints
 * an app sees through the proxy": upgrade the nodes holding the auto model first).
 *
 * The peers are plain HTTP servers: a real Hub of an older build is not something a test can
 * start, and only the status it answers matters here.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import pino from 'pino';
import { json, startHostileServer, type HostileServer } from '../../test/helpers/hostile-upstream.js';
import type { BackendHealth } from '../engines/health-snapshot.js';
import type { UsablePeer } from '../placement/candidates.js';
import { usablePeerFixture } from '../placement/usable-peer.fixture.js';
import { LocalRoutes } from './local-routes.js';
import type { PoolAccess, PoolProxy } from './pool-proxy.js';
import { PROXY_PREFIX } from './route-table.js';

const MODEL = 'peer-only:8b';
const DESCRIPTION = { details: { family: 'qwen3', parameter_size: '8B' }, capabilities: ['completion'] };

describe('/api/show asked of a peer on a build without /local/api/show', () => {
  const dispatcher = new Agent();
  let oldBuild: HostileServer;
  let newBuild: HostileServer;
  let asked: string[];
  let front: Server;
  let peers: UsablePeer[];

  before(async () => {
    oldBuild = await startHostileServer({}); // every path answers 404, as a build without the route does
    newBuild = await startHostileServer({ [`${PROXY_PREFIX}/local/api/show`]: json(DESCRIPTION) });
    const holding = (name: string, origin: string) => usablePeerFixture(name, [{ kind: 'ollama', models: [MODEL] }], { origin });
    asked = [];
    const routes = new LocalRoutes({
      pool: {
        usablePeers: () => peers,
        peerAuth: async (peerId: string) => {
          asked.push(peerId);
          return {};
        },
      } as unknown as PoolAccess,
      // This node's own engines hold nothing: the lookup goes to the peers.
      health: { snapshot: async () => [] } as unknown as BackendHealth,
      dispatcher,
      proxy: { showOrder: (_model: string, ranked: readonly UsablePeer[]) => [...ranked] } as unknown as PoolProxy,
      logger: pino({ level: 'silent' }),
      unservable: () => false,
    });
    front = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void routes.ollamaShow(Buffer.concat(chunks), res));
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    peers = [holding('old-build', oldBuild.url), holding('new-build', newBuild.url)];
  });
  after(async () => {
    front.closeAllConnections();
    await new Promise<void>((resolve) => front.close(() => resolve()));
    await Promise.all([oldBuild.close(), newBuild.close()]);
    await dispatcher.close();
  });

  async function show(): Promise<{ status: number; body: Record<string, unknown> }> {
    const { port } = front.address() as AddressInfo;
    const res = await request(`http://127.0.0.1:${port}/api/show`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL }),
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  }

  it('goes on to the next peer holding the model, whose description the app gets', async () => {
    asked.length = 0;
    const answer = await show();
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, DESCRIPTION);
    assert.deepEqual(asked, ['old-build', 'new-build']);
  });

  it('answers the 502 it answered before peers were asked when only such peers hold the model', async () => {
    peers = peers.filter((p) => p.name === 'old-build');
    const answer = await show();
    assert.equal(answer.status, 502);
    assert.equal(answer.body.code, 'HUB_ERR_NO_CANDIDATE');
    assert.equal(answer.body.error, `No pool node currently has model "${MODEL}" available.`);
    assert.deepEqual(answer.body.localBackends, []);
  });
});
