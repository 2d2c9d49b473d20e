import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatTraceParent, MAX_TRACESTATE_CHARS, MAX_TRACESTATE_MEMBERS, parseTraceParent, readIncomingTrace } from './trace-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('traceparent', () => {
  it('reads a version 00 header with its sampled flag', () => {
    assert.deepEqual(parseTraceParent(`00-${TRACE}-${SPAN}-01`), { traceId: TRACE, parentId: SPAN, sampled: true });
    assert.deepEqual(parseTraceParent(`00-${TRACE}-${SPAN}-00`), { traceId: TRACE, parentId: SPAN, sampled: false });
    assert.deepEqual(parseTraceParent(` 00-${TRACE}-${SPAN}-03 `), { traceId: TRACE, parentId: SPAN, sampled: true });
  });

  it('reads a later version and ignores what it appends', () => {
    assert.deepEqual(parseTraceParent(`01-${TRACE}-${SPAN}-01-extra`), { traceId: TRACE, parentId: SPAN, sampled: true });
  });

  const refused: Array<[string, string | string[] | undefined]> = [
    ['absent', undefined],
    ['repeated', [`00-${TRACE}-${SPAN}-01`, `00-${TRACE}-${SPAN}-01`]],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with more after it', `00-${TRACE}-${SPAN}-01-extra`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['not hex', `00-${'z'.repeat(32)}-${SPAN}-01`],
  ];
  for (const [name, value] of refused) it(`ignores ${name}`, () => assert.equal(parseTraceParent(value), null));

  it('writes version 00 with the span as parent', () => {
    assert.equal(formatTraceParent(TRACE, SPAN, true), `00-${TRACE}-${SPAN}-01`);
    assert.equal(formatTraceParent(TRACE, SPAN, false), `00-${TRACE}-${SPAN}-00`);
  });
});

describe('tracestate', () => {
  const parent = `00-${TRACE}-${SPAN}-01`;
  it('rides along with a valid traceparent, repeated headers joined', () => {
    assert.equal(readIncomingTrace({ traceparent: parent, tracestate: 'a=1' })?.state, 'a=1');
    assert.equal(readIncomingTrace({ traceparent: parent, tracestate: ['a=1', 'b=2'] })?.state, 'a=1,b=2');
  });
  it('means nothing without a valid traceparent', () => {
    assert.equal(readIncomingTrace({ traceparent: 'nonsense', tracestate: 'a=1' }), null);
  });
  it('is dropped with control characters in it', () => {
    assert.equal(readIncomingTrace({ traceparent: parent, tracestate: 'a=1\u0000' })?.state, null);
  });
  const member = (key: string, chars: number) => `${key}=${'x'.repeat(chars - key.length - 1)}`;
  const rows: { name: string; members: string[]; kept: string[] }[] = [
    { name: 'exactly the limit: kept as it came', members: [member('a', 255), member('b', 255)], kept: [member('a', 255), member('b', 255)] },
    {
      name: 'over it: members go from the end',
      members: Array.from({ length: 6 }, (_, i) => member(`k${i}`, 100)),
      kept: ['k0', 'k1', 'k2', 'k3', 'k4'].map((k) => member(k, 100)),
    },
    {
      name: 'a member over 128 characters goes before any shorter one, wherever it stands',
      members: [member('big', 200), member('a', 100), member('b', 100), member('c', 100), member('d', 100)],
      kept: [member('a', 100), member('b', 100), member('c', 100), member('d', 100)],
    },
    { name: 'one member longer than the limit: nothing is left', members: [member('a', MAX_TRACESTATE_CHARS + 1)], kept: [] },
  ];
  it(`keeps the first ${MAX_TRACESTATE_MEMBERS} members of a longer list, however short`, () => {
    const members = Array.from({ length: MAX_TRACESTATE_MEMBERS + 3 }, (_, i) => `k${i}=v`);
    const state = readIncomingTrace({ traceparent: parent, tracestate: members.join(',') })?.state;
    assert.equal(state, members.slice(0, MAX_TRACESTATE_MEMBERS).join(','));
    const full = members.slice(0, MAX_TRACESTATE_MEMBERS).join(', ');
    assert.equal(readIncomingTrace({ traceparent: parent, tracestate: full })?.state, full, 'a list at the limit passes as it came');
  });
  for (const r of rows)
    it(`past ${MAX_TRACESTATE_CHARS} characters is cut by whole members: ${r.name}`, () => {
      const state = readIncomingTrace({ traceparent: parent, tracestate: r.members.join(', ') })?.state ?? null;
      assert.equal(state, r.kept.length === 0 ? null : r.kept.join(r.kept.length === r.members.length ? ', ' : ','));
      assert.ok((state ?? '').length <= MAX_TRACESTATE_CHARS);
    });
});
