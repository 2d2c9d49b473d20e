/**
 * A residency read that fails or cannot tell does not hold the affinity engine (spec, "Local
 * engine contention": a warm prefix has to be shown). The budget case is in
 * contention-hold.test.ts; these are the engine that does not answer and the one that answers
 * something other than Ollama's /api/ps, over real sockets.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { refusedUrl } from '../../test/helpers/refused-port.js';
import type { Candidate } from '../placement/types.js';
import { affinityHold, engineResidency } from './contention-hold.js';

const HERMES = 'qwen3.6:35b';
const OPENCLAW = { model: 'qwen3.8:27b', numCtx: 32768 };

function localOllama(url: string): Candidate {
  return {
    id: 'local/ollama',
    node: 'local',
    backendId: 'ollama',
    engine: 'ollama',
    url,
    queueDepth: 1,
    loadReported: true,
    peerId: null,
    hardwareTier: null,
    pressure: 1,
  };
}

describe('affinityHold when the engine cannot show residency', () => {
  const dispatcher = new Agent();
  let odd: Server;
  let oddUrl: string;
  before(async () => {
    // Answers 200 with a body that is not /api/ps's shape: the engine said something, but not which models it holds.
    odd = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => odd.close(resolve));
    await dispatcher.close();
  });

  const hold = (url: string) =>
    affinityHold({
      contentionCanMove: true,
      target: localOllama(url),
      model: HERMES,
      runsAt: 65536,
      busy: [OPENCLAW],
      read: engineResidency(dispatcher),
      budgetMs: 60_000,
    });

  it('an engine that refuses the read: no hold', async () => assert.deepEqual(await hold(await refusedUrl()), { held: null, refused: 'residency unknown' }));

  it('an answer that lists no models in a shape the Hub reads: no hold', async () =>
    assert.deepEqual(await hold(oddUrl), { held: null, refused: 'residency unknown' }));
});
