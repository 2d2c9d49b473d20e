import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PEER_REFUSAL_MAX_CHARS, peerRefusalReason } from './peer-refusal-reason.js';

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
