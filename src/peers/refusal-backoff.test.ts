/**
 * How often a failing peer is polled (spec, "A peer whose identity changed"): a peer that gave no
 * answer, or a 5xx or 403, keeps the normal cadence because that clears by itself; one that
 * refuses this Hub (a bare 401, or a 401 naming identity-mismatch) does not clear by waiting,
 * so it is polled after two polls, then twice as long each time, up to 15 minutes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pino } from 'pino';
import type { NodeIdentity } from '../identity/node-identity.js';
import type { PairingService } from '../pairing/pairing-service.js';
import { HEADER_REFUSAL } from '../peer-auth/signed-headers.js';
import { openDatabase } from '../store/database.js';
import { PeerStore } from '../store/peers.js';
import { Background } from '../util/background.js';
import { ManualClock } from '../util/clock.js';
import { HealthPoller } from './health-poller.js';
import type { PeerAnswer, PeerClient } from './peer-client.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

const POLL_SECONDS = 30;

/** The seconds, from the first poll, at which a peer giving `answer` every time is polled, over `spanSeconds`. */
async function pollTimes(answer: PeerAnswer, spanSeconds: number): Promise<number[]> {
  const clock = new ManualClock();
  const start = clock.nowMs();
  const store = new PeerStore(openDatabase(join(scratchDir('cihub-backoff-'), 'hub.db')));
  store.insert({
    nodeFqdn: 'peer.tail0.ts.net',
    direction: 'outbound',
    status: 'connected',
    peerNodeUuid: '2f1c7a52-9d3e-4b8a-a0c1-5e6f7a8b9c0d',
    peerPublicKey: 'A'.repeat(43),
    pinVerified: true,
    issuedTokenHash: null,
    presentTokenSealed: null,
    createdAt: new Date(start).toISOString(),
    expiresAt: null,
  });
  const times: number[] = [];
  const client = {
    call: async () => {
      times.push((clock.nowMs() - start) / 1000);
      return answer;
    },
  } as unknown as PeerClient;
  const poller = new HealthPoller({
    store,
    client,
    pairing: { sweep: () => [], notesOn: () => ({ approvedThereAt: null, confirming: false }) } as unknown as PairingService,
    identity: {} as NodeIdentity,
    pollSeconds: () => POLL_SECONDS,
    clock,
    logger: pino({ level: 'silent' }),
    forwardsTo: () => 0,
    background: new Background({ logger: pino({ level: 'silent' }), clock }),
  });
  for (let s = 0; s <= spanSeconds; s += POLL_SECONDS) {
    await poller.tick();
    clock.advance(POLL_SECONDS * 1000);
  }
  return times;
}

const refused = (headers: Record<string, string>): PeerAnswer => ({ ok: true, status: 401, headers, json: null, auth: 'signed' });

describe('HealthPoller: the cadence of a failing peer', () => {
  // 2, 4, 8 and 16 polls after each refusal, that last one cut to 15 minutes, and 15 minutes from then on.
  const backingOff = [0, 60, 180, 420, 900, 1800, 2700];

  it('backs a bare 401 off from two polls to 15 minutes', async () => {
    assert.deepEqual(await pollTimes(refused({}), 2700), backingOff);
  });

  it('backs a 401 naming identity-mismatch off the same way', async () => {
    assert.deepEqual(await pollTimes(refused({ [HEADER_REFUSAL]: 'identity-mismatch' }), 2700), backingOff);
  });

  const everyPoll = Array.from({ length: 11 }, (_, i) => i * POLL_SECONDS);
  for (const [name, answer] of [
    ['no answer', { ok: false, error: 'connect ECONNREFUSED', auth: 'signed', unsent: null }],
    ['a 503', { ok: true, status: 503, headers: {}, json: null, auth: 'signed' }],
    ['a 403', { ok: true, status: 403, headers: {}, json: null, auth: 'signed' }],
  ] as const)
    it(`keeps the normal cadence for ${name}`, async () => {
      assert.deepEqual(await pollTimes(answer as PeerAnswer, 300), everyPoll);
    });
});
