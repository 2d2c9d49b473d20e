import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { Candidate } from '../placement/types.js';
import { settledRow } from './walk-rows.js';
import type { FailedAttempt, WalkOutcome, WalkRequest } from './walk-types.js';
import type { CallerLine } from './walk-caller.js';

const local: Candidate = {
  id: 'local/ollama-1',
  node: 'local',
  backendId: 'ollama-1',
  engine: 'ollama',
  url: 'http://127.0.0.1:1',
  queueDepth: 0,
  loadReported: true,
  peerId: null,
  hardwareTier: null,
  pressure: 1,
};
const peer: Candidate = { ...local, id: 'core-2/pool', node: 'core-2', backendId: null, engine: null, peerId: 'p1' };
const deadline: FailedAttempt = { candidate: peer, failure: { kind: 'deadline', budgetMs: 300_000 } };

function request(rowNode: string | null = null): WalkRequest {
  return {
    requestId: 'r1',
    route: { path: '/api/chat', dialect: 'ollama', completion: true } as WalkRequest['route'],
    model: 'm',
    body: Buffer.alloc(0),
    stream: true,
    order: [peer, local],
    budgetMs: 300_000,
    startedAt: 0,
    accept: undefined,
    res: {} as ServerResponse,
    caller: {} as CallerLine,
    rowNode,
    senderStallMs: null,
    windowOf: () => null,
  };
}

function outcome(o: Partial<WalkOutcome>): WalkOutcome {
  return {
    end: 'committed',
    served: local,
    attempt: 2,
    status: 200,
    headersMs: 40,
    attemptHeadersMs: 30,
    totalMs: 90,
    bodyFault: null,
    verdict: null,
    failures: [deadline],
    stoppedReadingMs: null,
    ...o,
  };
}

describe('settledRow', () => {
  const cases: readonly { name: string; req?: WalkRequest; outcome: WalkOutcome; expect: Record<string, unknown> }[] = [
    {
      name: 'a served answer after a failover names the node, the attempt and why the first was passed over',
      outcome: outcome({}),
      expect: {
        node: 'local',
        backend: 'ollama',
        attempt: 2,
        outcome: 'served',
        status: 200,
        durationMs: 40,
        totalMs: 90,
        failedOverFrom: ['core-2'],
        requestError: null,
        reason: null,
        clientClosed: false,
        stoppedReadingMs: null,
        attempts: [{ node: 'core-2', backend: null, status: null, reason: 'No response headers within 300000ms' }],
      },
    },
    {
      name: 'a 4xx passed through settles failed as a refused request',
      outcome: outcome({ status: 400, failures: [] }),
      expect: { outcome: 'failed', requestError: { signature: 'client-error', basis: 'status', confirms: null }, reason: 'HTTP 400', stoppedReadingMs: null },
    },
    {
      name: "an output fault on the last candidate is the node's fault",
      outcome: outcome({ bodyFault: { kind: 'output', fault: 'malformed-output' } }),
      expect: { outcome: 'failed', requestError: { signature: 'malformed-output', basis: 'node', confirms: null }, reason: 'output fault (malformed-output)' },
    },
    {
      name: 'an inbound row never carries a requestError and names the peer that sent the work',
      req: request('hub-a.tail0.ts.net'),
      outcome: outcome({ status: 400 }),
      expect: { node: 'hub-a.tail0.ts.net', outcome: 'failed', requestError: null },
    },
    {
      name: 'a caller that left during the probe: no node, no attempt, no status',
      outcome: outcome({ end: 'hung-up', served: null, attempt: null, status: null, headersMs: null, failures: [] }),
      expect: {
        node: null,
        attempt: null,
        status: null,
        outcome: 'failed',
        clientClosed: true,
        stoppedReadingMs: null,
        reason: 'the caller closed its connection before any answer',
      },
    },
    {
      name: 'a caller that left mid-answer keeps the node it was reading from',
      outcome: outcome({ end: 'hung-up' }),
      expect: { node: 'local', status: 200, clientClosed: true, stoppedReadingMs: null, reason: 'the caller closed its connection mid-answer' },
    },
    {
      name: "a caller this Hub closed for not reading stays the caller's hang-up, and the row says how long it had stopped reading",
      outcome: outcome({ end: 'hung-up', stoppedReadingMs: 300_000 }),
      expect: {
        node: 'local',
        status: 200,
        outcome: 'failed',
        clientClosed: true,
        stoppedReadingMs: 300_000,
        requestError: null,
        reason: 'the caller stopped reading for at least 300000 ms',
      },
    },
    {
      name: 'a sending Hub this peer closed for not reading its forward: the inbound row names the sender and how long it had stopped reading',
      req: request('hub-a.tail0.ts.net'),
      outcome: outcome({ end: 'hung-up', stoppedReadingMs: 600_000 }),
      expect: {
        node: 'hub-a.tail0.ts.net',
        outcome: 'failed',
        clientClosed: true,
        stoppedReadingMs: 600_000,
        reason: 'the caller stopped reading for at least 600000 ms',
      },
    },
    {
      name: 'a walk that ran out counts every attempt, gives the last reason, and failed over from all but the last',
      outcome: outcome({
        end: 'exhausted',
        served: null,
        attempt: null,
        status: null,
        headersMs: null,
        failures: [deadline, { candidate: local, failure: { kind: 'body-stalled', status: 200, idleMs: 300_000 } }],
      }),
      expect: {
        node: null,
        backend: null,
        attempt: 2,
        status: null,
        outcome: 'failed',
        reason: 'the engine stopped sending its body (nothing for 300000ms)',
        failedOverFrom: ['core-2'],
        attempts: [
          { node: 'core-2', backend: null, status: null, reason: 'No response headers within 300000ms' },
          { node: 'local', backend: 'ollama', status: 200, reason: 'the engine stopped sending its body (nothing for 300000ms)' },
        ],
      },
    },
    {
      name: 'a lone candidate that failed was tried, not failed over from',
      outcome: outcome({
        end: 'exhausted',
        served: null,
        attempt: null,
        status: null,
        headersMs: null,
        failures: [{ candidate: local, failure: { kind: 'deadline', budgetMs: 300_000 } }],
      }),
      expect: {
        attempt: 1,
        outcome: 'failed',
        failedOverFrom: [],
        attempts: [{ node: 'local', backend: 'ollama', status: null, reason: 'No response headers within 300000ms' }],
      },
    },
    {
      name: 'a caller that left after a failover keeps the node it moved on from',
      outcome: outcome({ end: 'hung-up', served: null, attempt: null, status: null, headersMs: null }),
      expect: { failedOverFrom: ['core-2'], clientClosed: true },
    },
    {
      name: 'a walk placement left nothing to try: no node, no attempt, the reason says so',
      outcome: outcome({ end: 'no-candidate', served: null, attempt: null, status: null, headersMs: null, failures: [] }),
      expect: { node: null, backend: null, attempt: null, status: null, outcome: 'failed', attempts: [], reason: 'no candidate holds the model' },
    },
    {
      name: 'a verdict records its signature and basis, never the message',
      outcome: outcome({ end: 'verdict', status: 500, verdict: { signature: 'context-length', basis: 'confirmed', confirms: 'core-2' } }),
      expect: {
        outcome: 'failed',
        status: 500,
        requestError: { signature: 'context-length', basis: 'confirmed', confirms: 'core-2' },
        reason: 'HTTP 500 (context-length)',
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const row = settledRow(c.req ?? request(), c.outcome) as Record<string, unknown>;
      for (const [key, value] of Object.entries(c.expect)) assert.deepEqual(row[key], value, key);
    });
  }
});
