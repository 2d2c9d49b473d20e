import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { EngineKind } from '../engines/engine-kind.js';
import type { Candidate } from '../placement/types.js';
import type { VerdictSignature } from './request-verdict.js';
import { VerdictTracker } from './verdict-tracker.js';

function c(node: string, engine: EngineKind | null): Candidate {
  return {
    id: `${node}/${engine}`,
    node,
    backendId: engine,
    engine,
    url: 'http://127.0.0.1',
    queueDepth: 0,
    loadReported: true,
    peerId: engine === null ? node : null,
    hardwareTier: null,
    pressure: 1,
  };
}
const noWindow = () => null;

/** A tracker told each verdict by the engine kind of the candidate that gave it, as a local engine's verdict is. */
function tracker(order: readonly Candidate[], windowOf: (c: Candidate) => number | null) {
  const t = new VerdictTracker<string>(order, windowOf);
  return { onVerdict: (index: number, signature: VerdictSignature, r: string) => t.onVerdict(index, signature, order[index]!.engine, r) };
}

describe('VerdictTracker', () => {
  it('answers a definitive verdict at once, whatever is ahead', () => {
    const t = tracker([c('local', 'ollama'), c('local', 'vllm')], noWindow);
    const d = t.onVerdict(0, 'no-user-query', 'r');
    assert.equal(d.action, 'answer');
    assert.equal(d.action === 'answer' && d.basis, 'definitive');
  });

  it('walks on after the first malformed-message refusal while another engine kind is ahead', () => {
    const t = tracker([c('local', 'ollama'), c('local', 'vllm')], noWindow);
    assert.deepEqual(t.onVerdict(0, 'invalid-message', 'r'), { action: 'walk-on' });
  });

  it('confirms when the next agrees and only refused kinds are left ahead', () => {
    const order = [c('a', 'ollama'), c('b', 'ollama'), c('c', 'ollama')];
    const t = tracker(order, noWindow);
    t.onVerdict(0, 'invalid-message', 'r1');
    const d = t.onVerdict(1, 'invalid-message', 'r2');
    assert.equal(d.action, 'answer');
    assert.deepEqual(d.action === 'answer' && [d.basis, d.confirms, d.verdict.response], ['confirmed', 'a', 'r2']);
  });

  it('does not confirm while a peer (whose engine this Hub cannot see) is still ahead', () => {
    const t = tracker([c('local', 'ollama'), c('local', 'ollama'), c('core-2.ts.net', null)], noWindow);
    t.onVerdict(0, 'chat-template', 'r1');
    assert.deepEqual(t.onVerdict(1, 'chat-template', 'r2'), { action: 'walk-on' });
  });

  it('confirms a prompt over the window only on the same known window with no larger or unknown one ahead', () => {
    const windows = new Map<string, number | null>([
      ['a', 8192],
      ['b', 8192],
      ['c', 32768],
    ]);
    const order = [c('a', 'ollama'), c('b', 'ollama'), c('c', 'ollama')];
    const t = tracker(order, (x) => windows.get(x.node) ?? null);
    t.onVerdict(0, 'context-length', 'r1');
    assert.deepEqual(t.onVerdict(1, 'context-length', 'r2'), { action: 'walk-on' }, 'c runs a larger window');
    const small = tracker(order.slice(0, 2), (x) => windows.get(x.node) ?? null);
    small.onVerdict(0, 'context-length', 'r1');
    const d = small.onVerdict(1, 'context-length', 'r2');
    assert.equal(d.action === 'answer' && d.basis, 'confirmed');
  });

  it('returns a waiting verdict from the last candidate, and only from it', () => {
    const t = tracker([c('local', 'ollama')], noWindow);
    const d = t.onVerdict(0, 'context-length', 'r');
    assert.equal(d.action === 'answer' && d.basis, 'last-candidate');
  });

  it('does not count a different verdict as agreement, even with only refused kinds ahead', () => {
    const t = tracker([c('a', 'ollama'), c('b', 'ollama'), c('c', 'ollama')], noWindow);
    t.onVerdict(0, 'invalid-message', 'r1');
    assert.deepEqual(t.onVerdict(1, 'chat-template', 'r2'), { action: 'walk-on' });
  });

  it('does not confirm while any engine kind ahead has not refused, behind ones that have', () => {
    const t = tracker([c('a', 'ollama'), c('b', 'ollama'), c('c', 'ollama'), c('d', 'vllm')], noWindow);
    t.onVerdict(0, 'invalid-message', 'r1');
    assert.deepEqual(t.onVerdict(1, 'invalid-message', 'r2'), { action: 'walk-on' });
  });

  it("counts the engine kind a peer names on its relayed refusal as having refused (the peer's candidate names none)", () => {
    // A peer whose vLLM refused, then a local Ollama agreeing: only a local vLLM is ahead, and vLLM has refused.
    const t = new VerdictTracker<string>([c('core-2.ts.net', null), c('local', 'ollama'), c('local', 'vllm')], noWindow);
    assert.deepEqual(t.onVerdict(0, 'invalid-message', 'vllm', 'r1'), { action: 'walk-on' });
    const d = t.onVerdict(1, 'invalid-message', 'ollama', 'r2');
    assert.deepEqual(d.action === 'answer' && [d.basis, d.confirms], ['confirmed', 'core-2.ts.net']);
  });

  it('counts no kind as refused when a peer did not name its engine', () => {
    const t = new VerdictTracker<string>([c('core-2.ts.net', null), c('local', 'ollama'), c('local', 'vllm')], noWindow);
    t.onVerdict(0, 'invalid-message', null, 'r1');
    assert.deepEqual(t.onVerdict(1, 'invalid-message', 'ollama', 'r2'), { action: 'walk-on' }, 'the local vLLM ahead has not refused');
  });

  it('answers a missing-messages verdict at once, like no-user-query', () => {
    const t = tracker([c('local', 'ollama'), c('local', 'vllm')], noWindow);
    const d = t.onVerdict(0, 'missing-messages', 'r');
    assert.equal(d.action === 'answer' && d.basis, 'definitive');
  });

  describe('a prompt over the window, confirmed by the second refusal against what is ahead', () => {
    // Three Ollama candidates a, b, c: a and b refuse in turn; the row gives each one's window.
    const rows: readonly { name: string; a: number | null; b: number | null; c: number | null; action: 'answer' | 'walk-on' }[] = [
      { name: 'the same window ahead cannot answer otherwise: confirmed', a: 8192, b: 8192, c: 8192, action: 'answer' },
      { name: 'a smaller window ahead cannot either: confirmed', a: 8192, b: 8192, c: 4096, action: 'answer' },
      { name: 'a larger window ahead might: walk on', a: 8192, b: 8192, c: 32768, action: 'walk-on' },
      { name: 'a window this Hub cannot see ahead might: walk on', a: 8192, b: 8192, c: null, action: 'walk-on' },
      { name: 'two refusals at different windows confirm nothing', a: 8192, b: 4096, c: 4096, action: 'walk-on' },
      { name: 'a second refusal at an unknown window confirms nothing', a: null, b: null, c: 4096, action: 'walk-on' },
    ];
    for (const r of rows) {
      it(r.name, () => {
        const windows = new Map([
          ['a', r.a],
          ['b', r.b],
          ['c', r.c],
        ]);
        const t = tracker([c('a', 'ollama'), c('b', 'ollama'), c('c', 'ollama')], (x) => windows.get(x.node) ?? null);
        t.onVerdict(0, 'context-length', 'r1');
        assert.equal(t.onVerdict(1, 'context-length', 'r2').action, r.action);
      });
    }
  });
});
