/**
 * POST /api/show for a model only a peer holds, when the app hangs up while the peer has not
 * answered yet. The lookup has a 15 s deadline from the dial, but nobody is left to read the
 * answer once the app is gone, so the Hub drops its call to the peer then rather than hold a
 * connection (and the peer's work) open until the deadline.
 *
 * The peer is the test process (a FakePeer), so the test can hold the lookup unanswered and see
 * the moment its connection goes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import type { ServerResponse } from 'node:http';
import { PEER_SHOW_HEADERS_TIMEOUT_MS } from '../../src/proxy/local-routes.js';
import { FakePeer, eventually, fqdn, pairFakeWithPin, peerNamed, reservePorts, startNamedHub, type HubProcess } from './pairing-fixtures.js';
import { scaled } from '../helpers/time-scale.js';

const MODEL = 'peer-only:8b';

describe('an /api/show lookup on a peer when the app hangs up', () => {
  let hub: HubProcess;
  const peer = new FakePeer('describer');

  before(async () => {
    await peer.start();
    peer.answerCapabilities = (res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          nodeUuid: peer.uuid,
          hardwareTier: null,
          backends: [{ kind: 'ollama', models: [MODEL] }],
          inFlightRequests: 0,
          acceptingWork: true,
        }),
      );
    const ports = await reservePorts(['hub']);
    // No engine of its own: only the peer can describe the model.
    hub = await startNamedHub({ name: fqdn('hub-entry'), port: ports.hub, origins: { [peer.name]: peer.origin } });
    await pairFakeWithPin(hub, peer);
    await eventually(async () => (await peerNamed(hub, peer.name))?.backends?.length, `${peer.name} polled`, scaled(15_000));
  });

  after(async () => {
    await hub?.stop();
    await peer.close();
  });

  it('stops asking the peer once the app hangs up, well before the lookup deadline', { timeout: scaled(60_000) }, async () => {
    // The peer accepts the lookup and never sends its headers.
    const asked = new Promise<ServerResponse>((resolve) => {
      peer.answerLocal = resolve;
    });
    const body = JSON.stringify({ model: MODEL });
    const app = httpRequest(`${hub.pool}/api/show`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      agent: false,
    });
    const appGone = new Promise<void>((resolve) => app.on('error', () => resolve()).on('close', resolve));
    app.end(body);

    const held = await asked;
    const path = peer.received.at(-1)?.url ?? '';
    assert.match(path, /\/local\/api\/show$/, 'the held call is the show lookup');
    const peerSawClose = once(held, 'close');
    const hungUpAt = Date.now();
    app.destroy();
    await appGone;
    await peerSawClose;
    const waited = Date.now() - hungUpAt;

    assert.equal(held.headersSent, false, 'the peer never answered: its call was dropped, not completed');
    assert.ok(
      waited < PEER_SHOW_HEADERS_TIMEOUT_MS / 3,
      `the peer's call is dropped when the app hangs up, not at the ${PEER_SHOW_HEADERS_TIMEOUT_MS} ms deadline; it closed after ${waited} ms`,
    );
  });
});
