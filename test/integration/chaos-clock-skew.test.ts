/**
 * A Hub whose wall clock jumps past the signing window and back (issue 15, item 3). A's clock
 * is shifted while it runs (test/helpers/skewed-clock.ts, preloaded into A's process), ten
 * minutes ahead: twice the ±300 s a signed request may be off by. While it is off, B refuses
 * what A signs and A refuses what B signs, so nothing crosses between them; A still serves what
 * its own engine holds, and nothing is left held. Once the clock is back, the pairing works
 * again on its own: no re-pairing, no restart, nothing an operator does.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SKEW_WINDOW_MS } from '../../src/peer-auth/verify-signed.js';
import { eventually, freshDataDir, REPO_ROOT } from '../helpers/hub-process.js';
import { chat, header, LONG_TEST_TIMEOUT_MS, START_TIMEOUT_MS, usePool, waitConnected } from '../helpers/pool-fixture.js';
import { heldCounters } from '../helpers/chaos.js';

const OWN = 'own:8b'; // on A
const B_ONLY = 'b-only:8b';
const POLL_SECONDS = 10;
const SKEW_MS = 2 * SKEW_WINDOW_MS;

describe('a clock skewed past the signing window and back', () => {
  const skewFile = join(freshDataDir(), 'skew-ms');

  before(
    async () => {
      writeFileSync(skewFile, '0');
    },
    { timeout: START_TIMEOUT_MS },
  );
  const pool = usePool<'a' | 'b'>({
    hubs: {
      a: {
        ollama: { models: [OWN] },
        env: {
          NODE_OPTIONS: `--import=${join(REPO_ROOT, 'dist/test/helpers/skewed-clock.js')}`,
          CIHUB_TEST_CLOCK_SKEW_FILE: skewFile,
        },
      },
      b: { ollama: { models: [B_ONLY] } },
    },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: POLL_SECONDS },
  });

  it('refuses what crosses while the clock is off, serves locally, and pools again once it is back', { timeout: LONG_TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    assert.equal((await chat(a, B_ONLY)).status, 200, 'A forwards to B before the skew');

    writeFileSync(skewFile, String(SKEW_MS));
    // A's clock is off: B refuses A's signed requests, so A cannot place on B.
    const refused = await eventually(async () => {
      const r = await chat(a, B_ONLY);
      return r.status !== 200 ? r : null;
    }, "B to refuse A's skewed requests");
    assert.notEqual(refused.status, 500, refused.text);
    const local = await chat(a, OWN);
    assert.equal(local.status, 200, 'A still serves what its own engine holds');
    assert.equal(header(local, 'x-hub-pool-served-by'), 'local');
    // B's polls of A are refused too, and B says why: a refusal, with the clocks to compare.
    const seen = await b.waitForPeer(a, 'refusing its polls', (p) => p.probeFailure?.kind === 'unauthorized', (1 + 2) * POLL_SECONDS * 1000);
    assert.match(seen.probeFailure?.action ?? '', /compare the two clocks/);

    writeFileSync(skewFile, '0');
    for (const [viewer, other] of [
      [a, b],
      [b, a],
    ] as const) {
      await viewer.waitForPeer(other, 'polled cleanly again', (p) => p.probeFailure === null && p.consecutiveFailures === 0, (1 + 2) * POLL_SECONDS * 1000);
      await waitConnected(viewer, other);
    }
    const back = await eventually(async () => {
      const r = await chat(a, B_ONLY);
      return r.status === 200 ? r : null;
    }, 'A to forward to B again');
    assert.equal(header(back, 'x-hub-pool-served-by'), b.name);
    for (const hub of [a, b]) {
      const held = await eventually(async () => {
        const h = heldCounters(await hub.status());
        return h.length === 0 ? h : null;
      }, `${hub.name} to hold nothing`);
      assert.deepEqual(held, []);
    }
  });
});
