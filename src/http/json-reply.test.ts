import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { JSON_PIECE_MAX_CHARS, jsonReply } from './json-reply.js';

const text = (out: string | Buffer) => (typeof out === 'string' ? out : out.toString('utf8'));

/** A seeded random JSON-ish value: every kind JSON.stringify treats apart, nested. */
function randomValue(next: (n: number) => number, depth: number): unknown {
  const leaves: (() => unknown)[] = [
    () => next(1000) - 500,
    () => next(1000) / 7,
    () => `s${next(100)}é—\u{1F600}"\\\n`,
    () => null,
    () => next(2) === 0,
    () => undefined,
    () => () => 1,
    () => Symbol('x'),
    () => new Date(Date.UTC(2026, 11, next(28) + 1)),
    () => NaN,
    () => new Map([[1, 2]]),
    () => ({ toJSON: (key: string) => `toJSON of ${key}` }),
  ];
  if (depth === 0 || next(3) === 0) return leaves[next(leaves.length)]!();
  if (next(2) === 0) return Array.from({ length: next(6) }, () => randomValue(next, depth - 1));
  const out: Record<string, unknown> = Object.create(next(4) === 0 ? null : Object.prototype) as Record<string, unknown>;
  for (let i = next(6); i > 0; i--) out[`k${next(20)}`] = randomValue(next, depth - 1);
  return out;
}

describe('jsonReply', () => {
  it('writes what JSON.stringify writes, for 2,000 seeded random values', () => {
    let seed = 5;
    const next = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
    for (let i = 0; i < 2000; i++) {
      const value = { top: randomValue(next, 5), list: [randomValue(next, 4), randomValue(next, 4)] };
      assert.equal(text(jsonReply(value)), JSON.stringify(value));
    }
  });

  it('hands toJSON the key JSON.stringify would, for a member of the levels it opens', () => {
    const keyed = { toJSON: (key: string) => `at ${key}` };
    const value = { a: keyed, list: [keyed, { b: keyed }] };
    assert.equal(text(jsonReply(value)), JSON.stringify(value));
  });

  it('gives a small answer as one string', () => assert.equal(jsonReply({ code: 'X', message: 'm' }), '{"code":"X","message":"m"}'));

  it('gives a large answer as bytes, in no string longer than the bound', () => {
    // 60 peers listing 300 models each: about 300K characters, every row alone under the bound.
    const status = { peers: Array.from({ length: 60 }, (_, i) => ({ name: `p${i}.ts.net`, models: Array.from({ length: 300 }, (_, m) => `model-${m}:7b`) })) };
    const out = jsonReply(status);
    assert.ok(Buffer.isBuffer(out));
    assert.equal(out.toString('utf8'), JSON.stringify(status));
  });

  it('opens a member too long to write whole, however deep it sits', () => {
    const deep = { a: { b: { c: { models: Array.from({ length: 8000 }, (_, m) => `model-${m}:latest`) } } } };
    assert.ok(JSON.stringify(deep.a.b.c).length > JSON_PIECE_MAX_CHARS);
    assert.equal(text(jsonReply(deep)), JSON.stringify(deep));
  });

  it('is sent by Fastify as a reply serializer: the bytes, their length and the JSON type', async () => {
    const app = Fastify();
    app.setReplySerializer(jsonReply as (payload: unknown) => string);
    const big = { rows: Array.from({ length: 5000 }, (_, i) => ({ i, name: `row-${i}-é` })) };
    app.get('/big', async () => big);
    app.get('/small', async () => ({ ok: true }));
    try {
      const res = await app.inject({ method: 'GET', url: '/big' });
      assert.equal(res.body, JSON.stringify(big));
      assert.equal(res.headers['content-length'], String(Buffer.byteLength(JSON.stringify(big))));
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const small = await app.inject({ method: 'GET', url: '/small' });
      assert.equal(small.body, '{"ok":true}');
      assert.match(String(small.headers['content-type']), /^application\/json/);
    } finally {
      await app.close();
    }
  });
});
