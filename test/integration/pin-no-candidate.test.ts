/**
 * The 502 for a model no pool node can serve, while a routing pin applies to that model: the
 * answer names the pin and clears it in the same message, so an operator reading it does not
 * go hunting for a pin that only ever reorders (spec, "Manual routing pins": a pin can never make
 * inference fail). Nothing checked the wording before; the routing test only covers pins that
 * match a candidate or none of a served model's.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chat, post, TEST_TIMEOUT_MS, usePool } from '../helpers/pool-fixture.js';

const SERVED = 'served:8b';
const NOWHERE = 'nowhere:1b'; // on no engine of either Hub
const PINS = '/api/inference/pool/pins';

describe('a request for a model nothing serves, with a pin in force', () => {
  const pool = usePool<'a' | 'b'>({
    hubs: { a: { ollama: { models: [SERVED] } }, b: { ollama: { models: [SERVED] } } },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: 300 },
  });

  const setPins = async (pins: readonly Record<string, unknown>[]) => {
    for (const pin of pins) {
      const res = await pool().a.api('POST', PINS, pin);
      assert.equal(res.status, 200, JSON.stringify(res.json));
    }
  };
  const clearPins = async () => {
    await pool().a.api('DELETE', `${PINS}?scope=model&model=${encodeURIComponent(NOWHERE)}`);
    await pool().a.api('DELETE', `${PINS}?scope=default`);
  };

  it('without a pin, the 502 says only that no node has the model', { timeout: TEST_TIMEOUT_MS }, async () => {
    const res = await chat(pool().a, NOWHERE);
    assert.equal(res.status, 502, res.text);
    assert.equal(res.json.error.code, 'HUB_ERR_NO_CANDIDATE');
    assert.equal(res.json.error.message, `No pool node currently has model "${NOWHERE}" available.`);
  });

  it('with a model pin, the 502 names it and says it did not cause the failure, in both dialects', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    await setPins([{ scope: 'model', model: NOWHERE, target: b.name }]);
    try {
      const expected = `No pool node currently has model "${NOWHERE}" available. A model pin to ${b.name} applies to this model; pins only reorder candidates and did not cause this.`;
      const openai = await chat(a, NOWHERE);
      assert.equal(openai.status, 502, openai.text);
      assert.equal(openai.json.error.message, expected);
      const native = await post(a, '/api/chat', { model: NOWHERE, messages: [{ role: 'user', content: 'hello' }], stream: false });
      assert.equal(native.status, 502, native.text);
      assert.equal(native.json.error, expected);
    } finally {
      await clearPins();
    }
  });

  it('names the model pin, not the default one, when both are set: they never stack', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    await setPins([
      { scope: 'default', target: b.name },
      { scope: 'model', model: NOWHERE, target: 'local' },
    ]);
    try {
      const res = await chat(a, NOWHERE);
      assert.equal(res.status, 502, res.text);
      assert.match(res.json.error.message, / A model pin to local applies to this model; pins only reorder candidates and did not cause this\.$/);
      assert.doesNotMatch(res.json.error.message, /default pin/);
    } finally {
      await clearPins();
    }
  });

  it('names the default pin when it is the one that applies', { timeout: TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    await setPins([{ scope: 'default', target: b.name }]);
    try {
      const res = await chat(a, NOWHERE);
      assert.equal(res.status, 502, res.text);
      assert.match(
        res.json.error.message,
        new RegExp(` A default pin to ${b.name.replaceAll('.', '\\.')} applies to this model; pins only reorder candidates and did not cause this\\.$`),
      );
    } finally {
      await clearPins();
    }
  });
});
