import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { contentionFreeBoundMs } from './bound.js';
import { readFleet, readWorkload } from './data-files.js';
import { POLICIES } from './policies/all.js';
import { simulate } from './simulate.js';
import { buildTrace, type TraceRequest } from './trace.js';

const REPO_ROOT = resolve(import.meta.dirname, '../../..');
const fleet = readFleet(join(REPO_ROOT, 'bench/fleet/data/fleet.json'));
const full = readWorkload(join(REPO_ROOT, 'bench/fleet/data/workload.json'));
// The benchmark's own fleet (faults included) under a shorter stretch of its workload, so every policy runs in a moment.
const workload = { ...full, startWindowS: 1800, agents: full.agents.map((a) => ({ ...a, sessions: Math.ceil(a.sessions / 3) })) };
const trace = buildTrace(workload, workload.seed);
const byId = new Map<string, TraceRequest>(
  [...trace.sessions.flatMap((s) => s.turns.flatMap((t) => t.calls)), ...trace.open.map((o) => o.request)].map((r) => [r.id, r]),
);

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
      const answered = run.requests.filter((r) => r.kind !== 'embed' && r.ttftMs !== null);
      assert.ok(answered.length > 0);
      for (const r of answered) {
        const bound = contentionFreeBoundMs(byId.get(r.id)!, fleet)!;
        assert.ok(r.ttftMs! >= bound - CLOCK_SLACK_MS, `${r.id}: ${r.ttftMs} ms under its bound of ${bound} ms`);
      }
    });
  }

  it('leaves embeddings out', () => {
    const embed = trace.open.find((o) => o.request.kind === 'embed')!.request;
    assert.equal(contentionFreeBoundMs(embed, fleet), null);
  });

  it('is the placeholder path at most when a node answers placeholders, and the read alone when none does', () => {
    const long = trace.sessions[0]!.turns[0]!.calls[0]!;
    assert.ok(contentionFreeBoundMs(long, fleet)! <= 2300);
    const clean = { ...fleet, nodes: fleet.nodes.map((n) => ({ ...n, faults: [] })) };
    assert.ok(contentionFreeBoundMs(long, clean)! > 0);
  });
});
