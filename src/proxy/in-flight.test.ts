import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InFlight } from './in-flight.js';

describe('InFlight', () => {
  it('counts each acquire against its own key', () => {
    const inFlight = new InFlight();
    inFlight.acquire('ollama');
    inFlight.acquire('ollama');
    inFlight.acquire('core-2.tail.ts.net');
    assert.equal(inFlight.count('ollama'), 2);
    assert.equal(inFlight.count('core-2.tail.ts.net'), 1);
    assert.equal(inFlight.count('vllm'), 0);
    assert.equal(inFlight.total(), 3);
  });

  it('gives back one count per release', () => {
    const inFlight = new InFlight();
    const first = inFlight.acquire('ollama');
    const second = inFlight.acquire('ollama');
    first();
    assert.equal(inFlight.count('ollama'), 1);
    second();
    assert.equal(inFlight.count('ollama'), 0);
    assert.equal(inFlight.total(), 0);
  });

  it('ignores a second call of the same release, so a double finish cannot undercount another request', () => {
    const inFlight = new InFlight();
    const release = inFlight.acquire('ollama');
    inFlight.acquire('ollama');
    release();
    release();
    assert.equal(inFlight.count('ollama'), 1);
  });

  it('never counts below zero', () => {
    const inFlight = new InFlight();
    const release = inFlight.acquire('ollama');
    release();
    release();
    inFlight.acquire('ollama');
    assert.equal(inFlight.count('ollama'), 1);
  });

  it('counts every placement since start, finished or not', () => {
    const inFlight = new InFlight();
    inFlight.acquire('ollama')();
    inFlight.acquire('peer-b.tail0.ts.net');
    assert.deepEqual([inFlight.placed, inFlight.total()], [2, 1]);
  });
});
