import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePeerOrigins, peerOrigin } from './peer-origins.js';

describe('parsePeerOrigins', () => {
  it('unset or blank: an empty map and no problems', () => {
    for (const raw of [null, '', '  ', ',,']) {
      const parsed = parsePeerOrigins(raw);
      assert.equal(parsed.map.size, 0);
      assert.deepEqual(parsed.problems, []);
    }
  });

  it('maps normalised names to origins without a trailing slash', () => {
    const parsed = parsePeerOrigins(' Hub-B.tail9.ts.net. = http://127.0.0.1:5102/ , hub-c.tail9.ts.net=https://Example.test:8443');
    assert.deepEqual(
      [...parsed.map],
      [
        ['hub-b.tail9.ts.net', 'http://127.0.0.1:5102'],
        ['hub-c.tail9.ts.net', 'https://example.test:8443'],
      ],
    );
    assert.deepEqual(parsed.problems, []);
  });

  it('an IPv6 loopback origin is allowed', () => {
    assert.equal(parsePeerOrigins('hub-b.tail9.ts.net=http://[::1]:5102').map.get('hub-b.tail9.ts.net'), 'http://[::1]:5102');
  });

  const bad: { name: string; entry: string; problem: RegExp }[] = [
    { name: 'no equals sign', entry: 'hub-b.tail9.ts.net', problem: /no '='/ },
    { name: 'a single-label name', entry: 'hub-b=http://127.0.0.1:5102', problem: /single label/ },
    { name: 'a name with a scheme', entry: 'https://hub-b.tail9.ts.net=http://127.0.0.1:5102', problem: /scheme/ },
    { name: 'an origin that is not a URL', entry: 'hub-b.tail9.ts.net=127.0.0.1:5102', problem: /not (a URL|http)/ },
    { name: 'an empty origin', entry: 'hub-b.tail9.ts.net=', problem: /not a URL/ },
    { name: 'a non-http scheme', entry: 'hub-b.tail9.ts.net=ftp://127.0.0.1', problem: /not http or https/ },
    { name: 'an origin with a path', entry: 'hub-b.tail9.ts.net=http://127.0.0.1:5102/api', problem: /path/ },
    { name: 'an origin with a query', entry: 'hub-b.tail9.ts.net=http://127.0.0.1:5102/?x=1', problem: /query/ },
    { name: 'an origin with an empty query', entry: 'hub-b.tail9.ts.net=http://127.0.0.1:5102?', problem: /query/ },
    { name: 'an origin with a fragment', entry: 'hub-b.tail9.ts.net=http://127.0.0.1:5102#x', problem: /fragment/ },
    { name: 'an origin with credentials', entry: 'hub-b.tail9.ts.net=http://u:p@127.0.0.1:5102', problem: /credentials/ },
  ];
  for (const c of bad) {
    it(`${c.name} is reported and skipped, the good entries still apply`, () => {
      const parsed = parsePeerOrigins(`${c.entry},hub-z.tail9.ts.net=http://127.0.0.1:5199`);
      assert.equal(parsed.problems.length, 1);
      assert.match(parsed.problems[0] ?? '', c.problem);
      assert.deepEqual([...parsed.map], [['hub-z.tail9.ts.net', 'http://127.0.0.1:5199']]);
    });
  }

  it('a repeated name keeps the first mapping and reports the second', () => {
    const parsed = parsePeerOrigins('hub-b.tail9.ts.net=http://127.0.0.1:1,HUB-B.tail9.ts.net=http://127.0.0.1:2');
    assert.equal(parsed.map.get('hub-b.tail9.ts.net'), 'http://127.0.0.1:1');
    assert.equal(parsed.problems.length, 1);
    assert.match(parsed.problems[0] ?? '', /already mapped/);
  });
});

describe('peerOrigin', () => {
  const { map } = parsePeerOrigins('hub-b.tail9.ts.net=http://127.0.0.1:5102');
  it('a mapped name dials its origin', () => assert.equal(peerOrigin('hub-b.tail9.ts.net', map), 'http://127.0.0.1:5102'));
  it('the lookup is by normalised name', () => assert.equal(peerOrigin('HUB-B.tail9.ts.net.', map), 'http://127.0.0.1:5102'));
  it('an unmapped name dials https://<name>', () => assert.equal(peerOrigin('hub-c.tail9.ts.net', map), 'https://hub-c.tail9.ts.net'));
  it('with no map at all, https://<name>', () => assert.equal(peerOrigin('hub-b.tail9.ts.net', new Map()), 'https://hub-b.tail9.ts.net'));
});
