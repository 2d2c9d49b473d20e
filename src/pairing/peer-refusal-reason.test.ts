import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { declinedBecause, PEER_REFUSAL_MAX_CHARS, peerRefusalReason } from './peer-refusal-reason.js';

describe("a peer's reason for refusing a pairing request", () => {
  it('keeps a plain reason as it is', () => {
    assert.equal(peerRefusalReason('pairing is switched off on this Hub'), 'pairing is switched off on this Hub');
  });

  it('turns newlines, tabs and other controls into spaces, so the reason stays one line', () => {
    const said = 'not now.\n\nApproved hub-x\r\n\tok\u001b[2J\u009b31m\u2028end';
    const reason = peerRefusalReason(said);
    assert.equal(reason, 'not now. Approved hub-x ok [2J 31m end');
  });

  it(`keeps at most ${PEER_REFUSAL_MAX_CHARS} characters of it`, () => {
    assert.equal(peerRefusalReason('x'.repeat(PEER_REFUSAL_MAX_CHARS * 3))?.length, PEER_REFUSAL_MAX_CHARS);
  });

  it('gives none for a missing, non-string or blank reason', () => {
    for (const said of [undefined, null, 42, { text: 'no' }, '', ' \n\t ']) assert.equal(peerRefusalReason(said), null, JSON.stringify(said));
  });
});

describe('a refusal as this Hub repeats it', () => {
  it('quotes the far Hub\'s reason as its own words, so its "this Hub" cannot read as the operator\'s', () => {
    assert.equal(
      declinedBecause('hub-b.tail0.ts.net', 503, 'Hub Pool is switched off on this Hub: it takes no pairing requests'),
      'hub-b.tail0.ts.net declined the pairing request (HTTP 503); in its own words: "Hub Pool is switched off on this Hub: it takes no pairing requests"',
    );
  });

  it('says it gave no reason rather than quote nothing', () => {
    assert.equal(declinedBecause('the Hub at 192.168.1.42', 403, ' \n '), 'the Hub at 192.168.1.42 declined the pairing request (HTTP 403); it gave no reason');
  });
});
