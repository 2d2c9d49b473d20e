import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import type { Dispatcher } from 'undici';
import { readUpTo, relayBody } from './relay-body.js';

type Body = Dispatcher.ResponseData['body'];
const bodyOf = (stream: PassThrough) => stream as unknown as Body;

describe('readUpTo', () => {
  it('reads a body within the bound whole', async () => {
    const s = new PassThrough();
    const read = readUpTo(bodyOf(s), 11);
    s.write('hello ');
    s.end('there');
    assert.deepEqual(await read, { kind: 'whole', bytes: Buffer.from('hello there') });
  });

  it('stops past the bound, keeps what it read and leaves the rest unread for a relay', async () => {
    const s = new PassThrough();
    const read = readUpTo(bodyOf(s), 4);
    s.write('abc');
    s.write('defg');
    const r = await read;
    assert.equal(r.kind, 'over-limit');
    assert.equal(Buffer.concat(r.kind === 'over-limit' ? [...r.head] : []).toString(), 'abcdefg');
    s.end('hij');
    const rest: Buffer[] = [];
    for await (const chunk of s) rest.push(chunk as Buffer);
    assert.equal(Buffer.concat(rest).toString(), 'hij');
  });

  it('reports a body that fails part-way, and a later error does not escape', async () => {
    const s = new PassThrough();
    const read = readUpTo(bodyOf(s), 100);
    s.write('par');
    s.destroy(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    const r = await read;
    assert.equal(r.kind, 'failed');
    assert.equal((r.kind === 'failed' ? (r.error as { code: string }) : null)?.code, 'UND_ERR_SOCKET');
    s.emit('error', new Error('late'));
  });
});

describe('relayBody', () => {
  it('hands a settle that throws to the awaiting caller: it never escapes from the stream event', async () => {
    const body = new PassThrough();
    const res = new PassThrough();
    res.resume();
    const escaped: unknown[] = [];
    const onUncaught = (err: unknown) => escaped.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const relay = relayBody(bodyOf(body), res as unknown as ServerResponse, { judge: null }, () => {
        throw new Error('the judge could not read a frame');
      });
      body.end('data: [DONE]\n\n');
      await assert.rejects(relay, /the judge could not read a frame/);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    assert.deepEqual(escaped, []);
  });

  it('settles once, not dropped, when the body ends', async () => {
    const body = new PassThrough();
    const res = new PassThrough();
    res.resume();
    const calls: boolean[] = [];
    const relay = relayBody(bodyOf(body), res as unknown as ServerResponse, { judge: null, head: [Buffer.from('a')] }, (dropped) => calls.push(dropped));
    body.end('b');
    await relay;
    assert.deepEqual(calls, [false]);
  });
});
