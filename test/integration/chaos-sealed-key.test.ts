/**
 * A Hub whose sealed identity key cannot be opened (issue 15, item 3): B is restarted with an
 * identity.secret that is not the one its key was sealed with (a reinstall that regenerated it,
 * a restore from the wrong backup). B starts, says what is wrong in its status, and never mints
 * a new key over the old one (that would unpair the whole pool). It can still verify A, so what
 * A forwards to it is still served; nothing another node holds is lost. When the right secret
 * is back in place, B opens its key again on its own retry, and signs again with no operator
 * action: no rotate, no re-pairing.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_IDENTITY_RETRY_MS, IDENTITY_SECRET_FILE } from '../../src/identity/node-identity.js';
import { eventually } from '../helpers/hub-process.js';
import { chat, header, LONG_TEST_TIMEOUT_MS, usePool, waitConnected } from '../helpers/pool-fixture.js';

const A_ONLY = 'a-only:8b';
const B_ONLY = 'b-only:8b';
const POLL_SECONDS = 10;

describe('a Hub whose sealed identity key cannot be opened, until its secret is back', () => {
  const pool = usePool<'a' | 'b'>({
    hubs: { a: { ollama: { models: [A_ONLY] } }, b: { ollama: { models: [B_ONLY] } } },
    pairs: [['a', 'b']],
    settings: { poolHealthPollSeconds: POLL_SECONDS },
  });

  it('starts, says so, keeps its key and serves what A forwards; opens its key again once the secret returns', { timeout: LONG_TEST_TIMEOUT_MS }, async () => {
    const { a, b } = pool();
    const before = (await b.status()).localNode.identity!;
    const secretPath = join(b.dataDir, IDENTITY_SECRET_FILE);
    const secret = readFileSync(secretPath);

    await b.stop();
    writeFileSync(secretPath, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    await b.restart();
    const locked = await eventually(async () => {
      const id = (await b.status()).localNode.identity;
      return id?.identityError ? id : null;
    }, 'B to report that its key cannot be opened');
    assert.equal(locked.nodeUuid, before.nodeUuid, 'the same identity, not a new one');
    assert.equal(locked.fingerprint, before.fingerprint, 'no new key minted over the old one');

    // B verifies A without its own key: what A forwards is served, and B's own engine serves B's callers.
    await waitConnected(a, b);
    const forwarded = await eventually(async () => {
      const r = await chat(a, B_ONLY);
      return r.status === 200 ? r : null;
    }, 'A to forward to B');
    assert.equal(header(forwarded, 'x-hub-pool-served-by'), b.name);
    assert.equal((await chat(b, B_ONLY)).status, 200);

    writeFileSync(secretPath, secret, { mode: 0o600 });
    const unlocked = await eventually(
      async () => {
        const id = (await b.status()).localNode.identity;
        return id && id.identityError === null ? id : null;
      },
      'B to open its key again on its own',
      2 * DEFAULT_IDENTITY_RETRY_MS,
    );
    assert.equal(unlocked.fingerprint, before.fingerprint);
    // B signs again: its polls of A are accepted, and it forwards to A.
    await b.nextPoll(a, 3 * POLL_SECONDS * 1000);
    await waitConnected(b, a);
    const signed = await eventually(async () => {
      const r = await chat(b, A_ONLY);
      return r.status === 200 ? r : null;
    }, 'B to forward to A again');
    assert.equal(header(signed, 'x-hub-pool-served-by'), a.name);
  });
});
