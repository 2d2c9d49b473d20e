import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadEnv } from '../config/env.js';
import { hostJudge } from './edge.js';

/** A judge for a Hub started with these variables, on a machine whose tailscaled knows no MagicDNS name. */
function judgeFor(vars: Record<string, string>) {
  return hostJudge({ env: loadEnv(vars), peers: { self: () => Promise.resolve({ nodeFqdn: null }) } as never });
}

describe('the names a Hub answers to', () => {
  it('answers to the host name it was told to listen on, with or without a port', async () => {
    const judge = judgeFor({ HUB_HOST: 'Hub.Example.Test' });
    assert.equal(judge.known('hub.example.test:5002'), true);
    assert.equal(await judge.answersTo('HUB.example.test.'), true);
  });

  it('still refuses a name that is neither its own nor listed', async () => {
    const judge = judgeFor({ HUB_HOST: 'hub.example.test', HUB_ALLOWED_HOSTS: 'cihub.internal' });
    assert.equal(await judge.answersTo('cihub.internal'), true);
    assert.equal(await judge.answersTo('attacker.example.com'), false);
    assert.equal(await judge.answersTo('example.test'), false);
  });

  it('adds nothing for a listen address that is an IP', async () => {
    assert.equal(await judgeFor({ HUB_HOST: '0.0.0.0' }).answersTo('attacker.example.com'), false);
  });
});
