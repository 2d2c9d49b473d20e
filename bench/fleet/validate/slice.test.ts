import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WORKLOAD } from '../data-files.js';
import { buildTrace } from '../trace.js';
import { requestBody, SegmentText } from './request-body.js';
import { sliceEntry, sliceTrace } from './slice.js';
import { compare, type Observed } from './compare.js';

const REPO_ROOT = resolve(import.meta.dirname, '../../../..');
const workload = WORKLOAD.parse(JSON.parse(readFileSync(join(REPO_ROOT, 'bench/fleet/data/workload.json'), 'utf8')));
const nodes = ['core-2', 'beta-max', 'beta-1'];

describe('the validation slice of the trace', () => {
  const full = buildTrace(workload, workload.seed);
  const slice = sliceTrace(full, { nodes, windowMs: 600_000, maxTurns: 5 });
  const requests = [...slice.sessions.flatMap((s) => s.turns.flatMap((t) => t.calls)), ...slice.open.map((o) => o.request)];

  it('keeps only sessions and chat that start inside the window, with their first turns, and no embeddings', () => {
    assert.ok(slice.sessions.length > 0);
    for (const s of slice.sessions) {
      assert.ok(s.startMs < 600_000);
      assert.ok(s.turns.length <= 5);
      const original = full.sessions.find((f) => f.id === s.id)!;
      assert.deepEqual(
        s.turns.map((t) => t.calls.map((c) => c.id)),
        original.turns.slice(0, 5).map((t) => t.calls.map((c) => c.id)),
      );
    }
    assert.equal(full.sessions.filter((s) => s.startMs < 600_000).length, slice.sessions.length);
    assert.ok(slice.open.every((o) => o.atMs < 600_000 && o.request.kind === 'chat'));
    assert.equal(slice.requestCount, requests.length);
    assert.equal(new Set(requests.map((r) => r.id)).size, requests.length);
  });

  it('enters every request through a node of the slice, keeping entries that are in it', () => {
    for (const r of requests) assert.ok(nodes.includes(r.entry), r.entry);
    assert.equal(sliceEntry('beta-max', nodes), 'beta-max');
    assert.equal(sliceEntry('core-14', nodes), sliceEntry('core-14', nodes));
  });
});

describe('a replayed request body', () => {
  const session = buildTrace(workload, workload.seed).sessions.find((s) => s.agent === 'openclaw' && s.turns.length > 1)!;
  const texts = new SegmentText();
  const [first, second] = [session.turns[0]!.calls[0]!, session.turns[1]!.calls[0]!];
  const text = (b: Record<string, unknown>) => (b.messages as { content: string }[]).map((m) => m.content).join('');
  const a = requestBody(first, 'm', texts);
  const b = requestBody(second, 'm', texts);

  it('is as long as the trace says, at four characters a token', () => {
    assert.ok(Math.abs(text(a).length - first.promptTokens * 4) < 64);
  });

  it('repeats the previous turn as the next turn’s prefix, as far as the trace says they share', () => {
    const ta = text(a);
    const tb = text(b);
    let shared = 0;
    while (shared < ta.length && ta.charCodeAt(shared) === tb.charCodeAt(shared)) shared++;
    assert.ok(Math.abs(shared - second.sharedWithPrevious * 4) < 64, `${shared} vs ${second.sharedWithPrevious * 4}`);
  });

  it('keeps the session digest’s head (system and first message after it) the same across turns', () => {
    const head = (x: Record<string, unknown>) => JSON.stringify((x.messages as unknown[]).slice(0, 2));
    assert.equal(head(a), head(b));
  });
});

describe('comparing the prediction with the real Hubs', () => {
  const o = (id: string, ttftMs: number | null, servedBy: string | null, long = false): Observed => ({ id, kind: 'agent', long, ttftMs, servedBy });

  it('pairs requests by id and reports relative errors, bias and per-node counts', () => {
    const predicted = [o('a', 1200, 'x'), o('b', 500, 'y', true), o('c', 100, 'x')];
    const real = [o('a', 1000, 'x'), o('b', 1000, 'x', true), o('c', null, null)];
    const c = compare(predicted, real, ['x', 'y']);
    assert.equal(c.pairs.length, 2);
    assert.equal(c.unpaired, 1);
    assert.ok(Math.abs(c.relative.all.mean! - 0.35) < 1e-9);
    assert.ok(Math.abs(c.bias! - -0.15) < 1e-9);
    assert.equal(c.relative.long.count, 1);
    assert.equal(c.samePlaceShare, 0.5);
    assert.deepEqual(
      c.perNode.map((n) => [n.node, n.predicted, n.real]),
      [
        ['x', 2, 2],
        ['y', 1, 0],
      ],
    );
    assert.equal(c.perNode[1]!.relativeError, null);
  });
});
