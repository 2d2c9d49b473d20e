import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { peerAnsweredLine, peerFailedLine } from './probe-log.js';
import type { ProbeFailureKind } from './probe-failure.js';

const PEER = 'hub-b.tail0.ts.net';

describe('the log line for a failed peer poll', () => {
  const rows: {
    case: string;
    previous: ProbeFailureKind | null;
    kind: ProbeFailureKind;
    failures: number;
    markedUnreachable: boolean;
    level: 'warn' | 'debug';
  }[] = [
    { case: 'the first failure after good polls', previous: null, kind: 'unreachable', failures: 1, markedUnreachable: false, level: 'warn' },
    { case: 'a second failure of the same kind', previous: 'unreachable', kind: 'unreachable', failures: 2, markedUnreachable: false, level: 'debug' },
    { case: 'the failure that marks the peer unreachable', previous: 'unreachable', kind: 'unreachable', failures: 3, markedUnreachable: true, level: 'warn' },
    { case: 'a repeat once it is marked unreachable', previous: 'unreachable', kind: 'unreachable', failures: 9, markedUnreachable: false, level: 'debug' },
    { case: 'a failure of another kind than the last', previous: 'unreachable', kind: 'unauthorized', failures: 4, markedUnreachable: false, level: 'warn' },
    { case: 'an identity change, marked unreachable at once', previous: null, kind: 'identity_changed', failures: 1, markedUnreachable: true, level: 'warn' },
  ];
  for (const r of rows)
    it(`is ${r.level} for ${r.case}`, () => {
      const line = peerFailedLine(PEER, r.previous, {
        kind: r.kind,
        reason: 'connect ECONNREFUSED',
        failures: r.failures,
        markedUnreachable: r.markedUnreachable,
      });
      assert.equal(line.level, r.level);
      assert.deepEqual(line.fields, { peer: PEER, kind: r.kind, failures: r.failures, reason: 'connect ECONNREFUSED' });
      assert.equal(line.msg, `capabilities probe of ${PEER} failed: connect ECONNREFUSED`);
    });
});

describe('the log line for a good peer poll', () => {
  it('says the peer is reachable again, with how many polls had failed', () => {
    assert.deepEqual(peerAnsweredLine(PEER, true, 4), { level: 'info', fields: { peer: PEER, failures: 4 }, msg: 'peer reachable' });
  });
  it('says nothing for a peer that was answering already', () => {
    assert.equal(peerAnsweredLine(PEER, false, 0), null);
  });
});
