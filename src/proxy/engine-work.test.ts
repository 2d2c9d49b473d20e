import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { localEngine, peerNode } from '../placement/steps/candidate-fixtures.js';
import { EngineWork } from './engine-work.js';

const P = peerNode('beta-max', 2);
const L = localEngine('ollama', 1);

describe('EngineWork: generations per local engine as this Hub placed them', () => {
  const start = (requestId: string, candidate = L, model = 'qwen3.8:27b') => ({ requestId, model, candidate, index: 0 });
  it('counts an attempt on a local engine from its start to its end, with the window it runs at', () => {
    const work = new EngineWork();
    work.expect('r1', new Map([['ollama', 65536]]));
    work.onAttempt(start('r1'));
    assert.deepEqual(work.busy().get('ollama'), [{ model: 'qwen3.8:27b', numCtx: 65536 }]);
    work.onAttemptEnd(start('r1'));
    assert.equal(work.busy().get('ollama'), undefined);
  });
  it('ignores attempts on peers and requests never declared (embeddings)', () => {
    const work = new EngineWork();
    work.expect('r1', new Map([['ollama', null]]));
    work.onAttempt(start('r1', P));
    work.onAttempt(start('r2'));
    assert.equal(work.busy().size, 0);
  });
});
