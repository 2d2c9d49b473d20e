import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_FIRST_BYTE_TIMEOUT_MS, DEFAULT_MIN_PREFILL_TOKENS_PER_SEC } from '../config/env.js';
import { PROXY_BODY_LIMIT_BYTES } from '../http/proxy-routes.js';
import { FORWARD_STALL_FACTOR, forwardStallMs, MAX_STATED_STALL_MS, readStatedStall } from './forward-stall.js';
import { headerBudgetMs } from './header-budget.js';

describe("readStatedStall: the sender's X-Hub-Pool-Stall-Ms, read as untrusted input", () => {
  const read: readonly { name: string; value: unknown; ms: number | null }[] = [
    { name: 'a budget as the sender writes it', value: '300000', ms: 300_000 },
    { name: 'one millisecond, the smallest', value: '1', ms: 1 },
    { name: 'the cap itself', value: String(MAX_STATED_STALL_MS), ms: MAX_STATED_STALL_MS },
    { name: 'one past the cap, as the cap', value: String(MAX_STATED_STALL_MS + 1), ms: MAX_STATED_STALL_MS },
    { name: 'twenty digits, as the cap', value: '9'.repeat(20), ms: MAX_STATED_STALL_MS },
  ];
  for (const c of read) it(`reads ${c.name}`, () => assert.equal(readStatedStall(c.value), c.ms));

  const refused: readonly { name: string; value: unknown }[] = [
    { name: 'an absent header (a sender from before it)', value: undefined },
    { name: 'an empty value', value: '' },
    { name: 'zero', value: '0' },
    { name: 'a negative number', value: '-5000' },
    { name: 'a sign', value: '+5000' },
    { name: 'a leading zero', value: '05000' },
    { name: 'a fraction', value: '5000.5' },
    { name: 'an exponent', value: '3e5' },
    { name: 'hexadecimal', value: '0x1f4' },
    { name: 'a unit after the number', value: '5000ms' },
    { name: 'inner whitespace', value: '50 00' },
    { name: 'Infinity', value: 'Infinity' },
    { name: 'a word', value: 'forever' },
    { name: 'twenty-one digits', value: '1'.repeat(21) },
    { name: 'a header sent twice (Node joins the values with a comma)', value: '5000, 9000' },
    { name: 'a list of values', value: ['5000', '9000'] },
    { name: 'a number that is not header text', value: 5000 },
    { name: 'null', value: null },
  ];
  for (const c of refused) it(`reads nothing from ${c.name}`, () => assert.equal(readStatedStall(c.value), null));

  it('caps at the header budget a Hub at the default settings gives the largest body the proxy takes (64 MiB at 50 tok/s, about 93 hours)', () => {
    assert.equal(MAX_STATED_STALL_MS, headerBudgetMs(PROXY_BODY_LIMIT_BYTES, DEFAULT_FIRST_BYTE_TIMEOUT_MS, DEFAULT_MIN_PREFILL_TOKENS_PER_SEC));
  });
});

describe('forwardStallMs: how long a peer serving a forward waits on a sender that reads nothing', () => {
  it('waits twice the larger budget', () => assert.equal(FORWARD_STALL_FACTOR, 2));

  const cases: readonly { name: string; own: number; sender: number | null; ms: number }[] = [
    { name: 'a sender that stated none (an older Hub): twice this Hub’s own budget, the rule before the header', own: 300_000, sender: null, ms: 600_000 },
    { name: 'equal budgets: twice the one budget', own: 300_000, sender: 300_000, ms: 600_000 },
    { name: 'a sender budget more than twice this Hub’s: twice the sender’s, so the sender still cuts first', own: 200, sender: 5_000, ms: 10_000 },
    { name: 'a sender budget under this Hub’s: twice this Hub’s own, never shorter than before the header', own: 300_000, sender: 1_000, ms: 600_000 },
    { name: 'a sender stating the cap: twice the cap', own: 300_000, sender: MAX_STATED_STALL_MS, ms: 2 * MAX_STATED_STALL_MS },
  ];
  for (const c of cases) it(c.name, () => assert.equal(forwardStallMs(c.own, c.sender), c.ms));
});
