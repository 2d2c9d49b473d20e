import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { DEFAULT_SETTINGS } from '../../../src/config/settings-schema.js';
import { readFleet } from '../data-files.js';
import { simulate } from '../simulate.js';
import type { Trace, TraceRequest } from '../trace.js';
import { hubPool } from './hub-pool.js';

const REPO_ROOT = resolve(import.meta.dirname, '../../../..');
const fleet = readFleet(join(REPO_ROOT, 'bench/fleet/data/fleet-validate.json'));

/** Short chats, one at a time, each entering through `entry` (beta-max: the slowest of the three). */
function chats(entry: string, count: number): Trace {
  const open = Array.from({ length: count }, (_, i) => {
    const request: TraceRequest = {
      id: `chat-${i}`,
      kind: 'chat',
      sessionId: null,
      entry,
      path: '/v1/chat/completions',
      model: 'chat',
      promptTokens: 400,
      segments: [{ id: `chat:${i}`, tokens: 400 }],
      numCtx: null,
      outputTokens: 20,
      stream: true,
      body: { messages: [{ role: 'user', content: `chat ${i}` }] },
      sharedWithPrevious: 0,
    };
    return { atMs: i * 120_000, request };
  });
  return { sessions: [], open, requestCount: open.length };
}

describe('the Hub Pool policy with the entry engine local', () => {
  it('serves an idle pool’s requests on the entry node, as a Hub’s local head start does', () => {
    const run = simulate(fleet, chats('beta-max', 5), hubPool({ name: 'local', settings: DEFAULT_SETTINGS, localEntry: true }), 1);
    assert.deepEqual(
      run.requests.map((r) => r.servedBy),
      Array(5).fill('beta-max'),
    );
  });

  it('reaches every engine as a peer without it, so the entry node gets no head start', () => {
    const run = simulate(fleet, chats('beta-max', 5), hubPool({ name: 'peers', settings: DEFAULT_SETTINGS }), 1);
    assert.ok(
      run.requests.some((r) => r.servedBy !== 'beta-max'),
      JSON.stringify(run.requests.map((r) => r.servedBy)),
    );
  });
});
