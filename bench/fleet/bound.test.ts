import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { contentionFreeBounds } from './bound.js';
import { readFleet, readWorkload } from './data-files.js';
import { POLICIES } from './policies/all.js';
import { prefillMs } from './prefill.js';
import { simulate } from './simulate.js';
import { buildTrace } from './trace.js';

const REPO_ROOT = resolve(import.meta.dirname, '../../..');
const fleet = readFleet(join(REPO_ROOT, 'bench/fleet/data/fleet.json'));
const full = readWorkload(join(REPO_ROOT, 'bench/fleet/data/workload.json'));
// The benchmark's own fleet (faults included) under a shorter stretch of its workload, so every policy runs in a moment.
const workload = { ...full, startWindowS: 1800, agents: full.agents.map((a) => ({ ...a, sessions: Math.ceil(a.sessions / 3) })) };
const trace = buildTrace(workload, workload.seed);
const bounds = contentionFreeBounds(trace, fleet);

/**
 * A lone request meets its bound exactly, so the comparison allows for the simulator's clock:
 * it ends a prefill up to 0.01 ms early (PREFILL_EPSILON_MS in engine.ts) and keeps time in
 * epoch milliseconds, whose float resolution near 2026 is about 0.0002 ms.
 */
const CLOCK_SLACK_MS = 0.02;

describe('the contention-free bound', () => {
  for (const p of POLICIES) {
    it(`is never beaten by ${p.key}`, () => {
      const run = simulate(fleet, trace, p.factory, workload.seed);
      // The bound is for answers that did not come after a placeholder answer (bound.ts).
      const answered = run.requests.filter((r) => r.kind !== 'embed' && r.ttftMs !== null && r.badAnswers === 0);
      assert.ok(answered.length > 0);
      for (const r of answered) {
        const bound = bounds.get(r.id)!;
        assert.ok(r.ttftMs! >= bound - CLOCK_SLACK_MS, `${r.id}: ${r.ttftMs} ms under its bound of ${bound} ms`);
      }
    });
  }

  it('gives a first turn no more cache than the system prefix, and a later turn its previous turn', () => {
    const session = trace.sessions.find(
      (x) => x.agent === 'openclaw' && x.turns.length > 1 && x.turns[0]!.calls.length === 1 && x.turns[1]!.calls.length === 1,
    )!;
    const [first, second] = [session.turns[0]!.calls[0]!, session.turns[1]!.calls[0]!];
    const fastest = fleet.nodes.reduce((a, b) => (b.prefillTokensPerSec > a.prefillTokensPerSec ? b : a));
    const read = (from: number, r: typeof first) => prefillMs(from, r.promptTokens, fastest.prefillTokensPerSec, fastest.growthTokens);
    assert.equal(bounds.get(first.id), read(first.segments[0]!.tokens, first));
    assert.equal(bounds.get(second.id), read(second.sharedWithPrevious, second));
    assert.equal(bounds.has(trace.open.find((o) => o.request.kind === 'embed')!.request.id), false);
  });
});
