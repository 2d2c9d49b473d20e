import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPermissionRefusal, parseServeConfig, serveVerdict, type ServeVerdict } from './tailscale-serve.js';

const NAME = 'hub-a.tail0.ts.net';
const site = (hostPort: string, handlers: Record<string, unknown>) => ({ TCP: { '443': { HTTPS: true } }, Web: { [hostPort]: { Handlers: handlers } } });

describe('serveVerdict', () => {
  const cases: { name: string; json: unknown; verdict: ServeVerdict }[] = [
    { name: 'an empty config ({})', json: {}, verdict: { kind: 'absent' } },
    {
      name: 'the root proxied to the Hub port on 127.0.0.1',
      json: site(`${NAME}:443`, { '/': { Proxy: 'http://127.0.0.1:5002' } }),
      verdict: { kind: 'publishes' },
    },
    { name: 'on localhost', json: site(`${NAME}:443`, { '/': { Proxy: 'http://localhost:5002' } }), verdict: { kind: 'publishes' } },
    { name: 'on [::1]', json: site(`${NAME}:443`, { '/': { Proxy: 'http://[::1]:5002' } }), verdict: { kind: 'publishes' } },
    {
      name: 'a bare port target (tailscale serve 5002 writes it out in full, older ones did not)',
      json: site(`${NAME}:443`, { '/': { Proxy: '127.0.0.1:5002' } }),
      verdict: { kind: 'publishes' },
    },
    {
      name: 'the root proxied to another port',
      json: site(`${NAME}:443`, { '/': { Proxy: 'http://127.0.0.1:11434' } }),
      verdict: { kind: 'other', target: 'http://127.0.0.1:11434' },
    },
    {
      name: 'the root serving files',
      json: site(`${NAME}:443`, { '/': { Path: '/srv/www' } }),
      verdict: { kind: 'other', target: 'a handler that is not a proxy' },
    },
    { name: 'only a sub-path is served', json: site(`${NAME}:443`, { '/grafana': { Proxy: 'http://127.0.0.1:3000' } }), verdict: { kind: 'absent' } },
    { name: 'another port than 443', json: site(`${NAME}:8443`, { '/': { Proxy: 'http://127.0.0.1:5002' } }), verdict: { kind: 'absent' } },
    { name: "another machine's name", json: site('other.tail0.ts.net:443', { '/': { Proxy: 'http://127.0.0.1:5002' } }), verdict: { kind: 'absent' } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const config = parseServeConfig(c.json);
      assert.ok(config);
      assert.deepEqual(serveVerdict(config, NAME, 5002), c.verdict);
    });
  }
  it('a document that is not a serve config is refused', () => assert.equal(parseServeConfig('No serve config'), null));
});

describe('isPermissionRefusal', () => {
  it("reads Tailscale's refusals, and nothing else, as a question of who asked", () => {
    assert.equal(isPermissionRefusal('sending serve config: Access denied: serve config denied'), true);
    assert.equal(isPermissionRefusal("Use 'sudo tailscale serve' or 'tailscale set --operator=$USER'"), true);
    assert.equal(isPermissionRefusal('serve config: port 443 already in use'), false);
  });
});
