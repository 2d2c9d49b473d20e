import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubError } from '../errors.js';
import { DATABASE_FILE_NAME, openDatabase, type Db } from '../store/database.js';
import { Background, type BackgroundHandle, type BackgroundTask } from '../util/background.js';
import { ManualClock } from '../util/clock.js';
import { createLogger } from '../util/logger.js';
import { scaled } from '../../test/helpers/time-scale.js';
import { keyFingerprint } from './fingerprint.js';
import type { IdentityFailureCause } from './identity-failure-cause.js';
import { IDENTITY_SECRET_FILE, NodeIdentity, type IdentityState } from './node-identity.js';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'cihub-identity-'));
});
after(() => {
  rmSync(root, { recursive: true, force: true });
});

interface LogLine {
  level: number;
  msg: string;
}

interface Hub {
  dir: string;
  db: Db;
  identity: NodeIdentity;
  logs: LogLine[];
  secretPath: string;
  reopen(opts?: { envSecret?: string | null; retryMs?: number; background?: Background }): NodeIdentity;
  row(): Record<string, unknown> | undefined;
  done(): void;
}

function hub(opts: { envSecret?: string | null; retryMs?: number; dir?: string } = {}): Hub {
  const dir = opts.dir ?? mkdtempSync(join(root, 'd-'));
  const db = openDatabase(join(dir, DATABASE_FILE_NAME));
  const logs: LogLine[] = [];
  const logger = createLogger('debug', { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) });
  const made: NodeIdentity[] = [];
  const make = (o: { envSecret?: string | null; retryMs?: number; background?: Background }): NodeIdentity => {
    const clock = new ManualClock();
    const identity = new NodeIdentity({
      db,
      dataDir: dir,
      envSecret: o.envSecret ?? null,
      clock,
      logger,
      background: o.background ?? new Background({ logger, clock }),
      retryMs: o.retryMs,
    });
    made.push(identity);
    return identity;
  };
  return {
    dir,
    db,
    identity: make(opts),
    logs,
    secretPath: join(dir, IDENTITY_SECRET_FILE),
    reopen: (o = {}) => make({ envSecret: opts.envSecret, retryMs: opts.retryMs, ...o }),
    row: () => db.prepare("SELECT * FROM hub_pool_identity WHERE id = 'self'").get() as Record<string, unknown> | undefined,
    done: () => {
      for (const identity of made) identity.close();
      if (db.open) db.close();
    },
  };
}

/** A Background that also keeps each periodic task it is given, so a test can run a tick itself. */
class RecordingBackground extends Background {
  readonly periodic: { name: string; task: BackgroundTask; stopped: boolean }[] = [];

  override every(name: string, intervalMs: number, task: BackgroundTask): BackgroundHandle {
    const entry = { name, task, stopped: false };
    this.periodic.push(entry);
    const handle = super.every(name, intervalMs, task);
    return {
      stop: () => {
        entry.stopped = true;
        handle.stop();
      },
    };
  }
}

function ok(state: IdentityState): Extract<IdentityState, { ok: true }> {
  assert.equal(state.ok, true, state.ok ? '' : state.error);
  return state as Extract<IdentityState, { ok: true }>;
}

function failed(state: IdentityState): Extract<IdentityState, { ok: false }> {
  assert.equal(state.ok, false, 'expected the identity to be unreadable');
  return state as Extract<IdentityState, { ok: false }>;
}

function verifiesWith(publicKey: string, state: Extract<IdentityState, { ok: true }>): boolean {
  const data = Buffer.from('hub-pool-request-v1');
  return verify(null, data, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: publicKey }, format: 'jwk' }), state.sign(data));
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + scaled(timeoutMs);
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('NodeIdentity', () => {
  it('mints nothing at construction: no row, no identity.secret, no summary', () => {
    const h = hub();
    try {
      assert.equal(h.row(), undefined);
      assert.equal(existsSync(h.secretPath), false);
      assert.equal(h.identity.summary(), null);
    } finally {
      h.done();
    }
  });

  it('mints on first load: a UUID, a raw Ed25519 public key, a sealed private key and a 0600 secret file', async () => {
    const h = hub();
    try {
      const state = ok(await h.identity.load());
      assert.match(state.nodeUuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.equal(Buffer.from(state.publicKey, 'base64url').length, 32);
      assert.equal(state.fingerprint, keyFingerprint(state.publicKey));
      assert.ok(verifiesWith(state.publicKey, state), 'signatures verify under the stored public key');
      const row = h.row();
      assert.equal(row?.node_uuid, state.nodeUuid);
      assert.equal(row?.public_key, state.publicKey);
      assert.match(String(row?.private_key_sealed), /^[A-Za-z0-9_-]{22}\.v1\.[A-Za-z0-9_-]+$/);
      assert.match(readFileSync(h.secretPath, 'utf8'), /^[0-9a-f]{64}\n$/);
      assert.equal(statSync(h.secretPath).mode & 0o777, 0o600);
      assert.deepEqual(h.identity.summary(), { nodeUuid: state.nodeUuid, fingerprint: state.fingerprint, identityError: null, identityCause: null });
    } finally {
      h.done();
    }
  });

  it('is memoised: concurrent and repeated loads share one state object and one mint', async () => {
    const h = hub();
    try {
      const [a, b] = await Promise.all([h.identity.load(), h.identity.load()]);
      assert.equal(a, b);
      assert.equal(await h.identity.load(), a);
      assert.equal((h.db.prepare('SELECT COUNT(*) AS n FROM hub_pool_identity').get() as { n: number }).n, 1);
      assert.equal(h.logs.filter((l) => l.msg === 'pool identity minted').length, 1);
    } finally {
      h.done();
    }
  });

  it('loads an existing identity without minting one: null on a Hub that has none, the stored one otherwise', async () => {
    const first = hub();
    let minted: Extract<IdentityState, { ok: true }>;
    try {
      assert.equal(await first.identity.loadExisting(), null);
      assert.equal(first.row(), undefined);
      assert.equal(existsSync(first.secretPath), false);
      minted = ok(await first.identity.load());
      assert.equal(await first.identity.loadExisting(), minted);
    } finally {
      first.done();
    }
    const again = hub({ dir: first.dir });
    try {
      const loaded = await again.identity.loadExisting();
      assert.ok(loaded, 'the stored identity is loaded');
      assert.equal(ok(loaded).nodeUuid, minted.nodeUuid);
    } finally {
      again.done();
    }
  });

  it('persists: a reopened database loads the same UUID and key pair', async () => {
    const first = hub();
    const minted = ok(await first.identity.load());
    first.done();
    const again = hub({ dir: first.dir });
    try {
      const loaded = ok(await again.identity.load());
      assert.equal(loaded.nodeUuid, minted.nodeUuid);
      assert.equal(loaded.publicKey, minted.publicKey);
      assert.ok(verifiesWith(minted.publicKey, loaded));
    } finally {
      again.done();
    }
  });

  const breakages: Array<{ name: string; breakIt: (h: Hub) => void; error: RegExp }> = [
    { name: 'a deleted identity.secret', breakIt: (h) => unlinkSync(h.secretPath), error: /identity\.secret: the file is missing/ },
    { name: 'a changed identity.secret', breakIt: (h) => writeFileSync(h.secretPath, `${'ab'.repeat(32)}\n`), error: /failed authentication/ },
    { name: 'an emptied identity.secret', breakIt: (h) => writeFileSync(h.secretPath, ''), error: /the file is empty/ },
  ];
  for (const b of breakages) {
    it(`reports ${b.name} as unreadable, keeping the clear UUID and key and re-minting nothing`, async () => {
      const h = hub({ retryMs: 15 });
      try {
        const minted = ok(await h.identity.load());
        const rowBefore = h.row();
        const secretBefore = existsSync(h.secretPath) ? readFileSync(h.secretPath, 'utf8') : null;
        b.breakIt(h);
        const secretBroken = existsSync(h.secretPath) ? readFileSync(h.secretPath, 'utf8') : null;
        const fresh = h.reopen();
        const state = failed(await fresh.load());
        assert.match(state.error, b.error);
        assert.match(state.error, /cannot sign/);
        assert.equal(state.nodeUuid, minted.nodeUuid);
        assert.equal(state.publicKey, minted.publicKey);
        assert.deepEqual(fresh.summary(), {
          nodeUuid: minted.nodeUuid,
          fingerprint: minted.fingerprint,
          identityError: state.error,
          identityCause: 'key-unopenable',
        });
        // Each retry that fails the same way logs it at debug: three of them have run and touched nothing.
        await eventually(async () => h.logs.filter((l) => l.level === 20 && b.error.test(l.msg)).length >= 3);
        assert.deepEqual(h.row(), rowBefore, 'the row is untouched');
        assert.equal(existsSync(h.secretPath) ? readFileSync(h.secretPath, 'utf8') : null, secretBroken, 'the secret file is not recreated');
        assert.notEqual(secretBroken, secretBefore);
        assert.equal(await fresh.load(), state, 'load keeps answering, from memory');
        assert.equal(h.logs.filter((l) => l.level === 50).length, 1, 'logged once at error, not on every retry');
      } finally {
        h.done();
      }
    });
  }

  const unusableSecrets: Array<{ name: string; breakIt: (h: Hub) => void; reason: RegExp; cause: IdentityFailureCause }> = [
    { name: 'holds only a newline', breakIt: (h) => writeFileSync(h.secretPath, '\n', { mode: 0o600 }), reason: /the file is empty/, cause: 'secret-invalid' },
    { name: 'is a directory', breakIt: (h) => mkdirSync(h.secretPath), reason: /EISDIR/, cause: 'secret-unreadable' },
  ];
  for (const u of unusableSecrets) {
    it(`shows why no identity could be made when identity.secret ${u.name}, and neither rotates nor replaces the file`, async () => {
      const h = hub({ retryMs: 60_000 });
      try {
        u.breakIt(h);
        const state = failed(await h.identity.load());
        assert.equal(state.nodeUuid, null);
        assert.match(state.error, new RegExp(`could not be made: the secret in ${h.secretPath} cannot be used`));
        assert.match(state.error, u.reason);
        assert.deepEqual(
          h.identity.summary(),
          { nodeUuid: null, fingerprint: null, identityError: state.error, identityCause: u.cause },
          'status shows the reason, not "not made yet"',
        );
        const problem = await h.identity.secretProblem();
        assert.ok(problem !== null && state.error.endsWith(problem.reason), `the same reason before a rotation: ${problem?.reason}`);
        assert.equal(problem.cause, u.cause);
        await assert.rejects(h.identity.rotate());
        assert.equal(h.row(), undefined, 'nothing minted');
        assert.equal(h.identity.summary()?.identityError, state.error, 'the failed rotation leaves the reported state as it was');
      } finally {
        h.done();
      }
    });
  }

  it('finds nothing wrong with a secret it can read, or one it can create, which it then creates as a mint would', async () => {
    const h = hub();
    const env = hub({ envSecret: 'operator-chosen secret' });
    try {
      assert.equal(await h.identity.secretProblem(), null);
      assert.ok(existsSync(h.secretPath));
      assert.equal(await h.identity.secretProblem(), null);
      const minted = ok(await h.identity.load());
      assert.equal(ok(await h.reopen().load()).publicKey, minted.publicKey, 'the identity is sealed under the secret the check wrote');
      assert.equal(await env.identity.secretProblem(), null);
      assert.equal(existsSync(env.secretPath), false, 'an env secret needs no file');
    } finally {
      h.done();
      env.done();
    }
  });

  it('makes the identity on a retry once an unusable secret file is removed', async () => {
    const h = hub({ retryMs: 20 });
    try {
      writeFileSync(h.secretPath, '\n', { mode: 0o600 });
      failed(await h.identity.load());
      unlinkSync(h.secretPath);
      await eventually(async () => (await h.identity.load()).ok);
      const made = ok(await h.identity.load());
      assert.deepEqual(h.identity.summary(), { nodeUuid: made.nodeUuid, fingerprint: made.fingerprint, identityError: null, identityCause: null });
    } finally {
      h.done();
    }
  });

  it('retries on its timer and recovers when the secret is restored', async () => {
    const h = hub({ retryMs: 20 });
    try {
      const minted = ok(await h.identity.load());
      const secret = readFileSync(h.secretPath);
      unlinkSync(h.secretPath);
      const fresh = h.reopen();
      failed(await fresh.load());
      writeFileSync(h.secretPath, secret, { mode: 0o600 });
      await eventually(async () => (await fresh.load()).ok);
      const recovered = ok(await fresh.load());
      assert.equal(recovered.publicKey, minted.publicKey);
      assert.ok(verifiesWith(minted.publicKey, recovered));
      assert.equal(fresh.summary()?.identityError, null);
      assert.ok(h.logs.some((l) => l.msg === 'pool identity is readable again'));
    } finally {
      h.done();
    }
  });

  it('rotates to a new key under the same UUID, replacing the row', async () => {
    const h = hub();
    try {
      const before = ok(await h.identity.load());
      const rotated = ok(await h.identity.rotate());
      assert.equal(rotated.nodeUuid, before.nodeUuid);
      assert.notEqual(rotated.publicKey, before.publicKey);
      assert.equal(await h.identity.load(), rotated);
      assert.equal(h.row()?.public_key, rotated.publicKey);
      assert.equal(ok(await h.reopen().load()).publicKey, rotated.publicKey, 'the new key is what a restart loads');
    } finally {
      h.done();
    }
  });

  it('rotates out of the broken state, re-creating identity.secret, which is the recovery path', async () => {
    const h = hub({ retryMs: 60_000 });
    try {
      const minted = ok(await h.identity.load());
      unlinkSync(h.secretPath);
      const fresh = h.reopen();
      failed(await fresh.load());
      const rotated = ok(await fresh.rotate());
      assert.equal(rotated.nodeUuid, minted.nodeUuid);
      assert.notEqual(rotated.publicKey, minted.publicKey);
      assert.ok(existsSync(h.secretPath));
      assert.ok(verifiesWith(rotated.publicKey, rotated));
      assert.deepEqual(fresh.summary(), { nodeUuid: minted.nodeUuid, fingerprint: rotated.fingerprint, identityError: null, identityCause: null });
      assert.equal(ok(await h.reopen().load()).publicKey, rotated.publicKey);
    } finally {
      h.done();
    }
  });

  it('uses HUB_POOL_IDENTITY_SECRET when set, writing no identity.secret, and refuses another secret', async () => {
    const h = hub({ envSecret: 'operator-chosen secret' });
    try {
      const minted = ok(await h.identity.load());
      assert.equal(existsSync(h.secretPath), false);
      assert.equal(ok(await h.reopen().load()).publicKey, minted.publicKey);
      const wrong = failed(await h.reopen({ envSecret: 'a different secret' }).load());
      assert.match(wrong.error, /HUB_POOL_IDENTITY_SECRET/);
      const noEnv = failed(await h.reopen({ envSecret: null }).load());
      assert.match(noEnv.error, /identity\.secret: the file is missing/);
    } finally {
      h.done();
    }
  });

  it('seals peer tokens with the identity key, and answers null for what it cannot unseal', async () => {
    const h = hub();
    try {
      const token = 'Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5';
      const sealed = await h.identity.sealToken(token);
      assert.match(sealed, /^v1\./);
      assert.equal(sealed.includes(token), false);
      assert.equal(await h.identity.unsealToken(sealed), token);
      assert.equal(await h.reopen().unsealToken(sealed), token, 'readable after a restart');
      assert.equal(await h.identity.unsealToken(`${sealed.slice(0, -2)}AA`), null);
      assert.equal(await h.identity.unsealToken('not sealed'), null);
      await h.identity.rotate();
      assert.equal(await h.identity.unsealToken(sealed), null, 'rotation retires tokens sealed under the old key');
    } finally {
      h.done();
    }
  });

  it('cannot seal or unseal tokens while the identity is unreadable', async () => {
    const h = hub({ retryMs: 60_000 });
    try {
      const sealed = await h.identity.sealToken('token');
      unlinkSync(h.secretPath);
      const broken = h.reopen();
      assert.equal(await broken.unsealToken(sealed), null);
      await assert.rejects(broken.sealToken('token'), (err: unknown) => {
        assert.ok(err instanceof HubError);
        assert.equal(err.code, 'HUB_ERR_IDENTITY_UNAVAILABLE');
        assert.doesNotMatch(err.message, new RegExp(h.dir), 'the refusal names no path: an anonymous caller reads it');
        assert.match(String((err.cause as Error).message), /the file is missing/);
        return true;
      });
    } finally {
      h.done();
    }
  });

  it('never rejects, even when the store itself fails', async () => {
    const h = hub({ retryMs: 60_000 });
    h.db.close();
    try {
      const state = failed(await h.identity.load());
      assert.match(state.error, /could not be made/);
      assert.equal(state.nodeUuid, null);
      assert.deepEqual(h.identity.summary(), { nodeUuid: null, fingerprint: null, identityError: state.error, identityCause: 'other' });
    } finally {
      h.done();
    }
  });

  it('stops retrying once closed', async () => {
    const h = hub({ retryMs: 10 });
    try {
      ok(await h.identity.load());
      const secret = readFileSync(h.secretPath);
      unlinkSync(h.secretPath);
      const background = new RecordingBackground({ logger: createLogger('silent'), clock: new ManualClock() });
      const fresh = h.reopen({ background, retryMs: 60_000 });
      failed(await fresh.load());
      const retry = background.periodic.find((p) => p.name === 'pool identity retry');
      assert.ok(retry, 'a failed load starts retrying');
      fresh.close();
      assert.equal(retry.stopped, true, 'close stops the retry timer');
      writeFileSync(h.secretPath, secret, { mode: 0o600 });
      // A tick already under way when close() came still finds the secret restored: it must not load it.
      await retry.task();
      assert.equal((await fresh.load()).ok, false);
    } finally {
      h.done();
    }
  });
});

/**
 * A read of identity.secret the kernel answers with EIO, as a failing disk does, without root or
 * a broken disk: the file is a link to /proc/self/mem, whose first page no process has mapped.
 */
function failReadsOfSecret(h: Hub): void {
  rmSync(h.secretPath, { force: true });
  symlinkSync('/proc/self/mem', h.secretPath);
}

/** hub.db refusing every write with SQLITE_READONLY, as on a disk turned read-only; undone by storeBack(). */
function refuseWritesToStore(h: Hub): void {
  h.db.pragma('query_only = ON');
}

function storeBack(h: Hub): void {
  h.db.pragma('query_only = OFF');
}

describe('NodeIdentity: why it cannot be used', () => {
  const firstMints: readonly { name: string; breakIt: (h: Hub) => void; cause: IdentityFailureCause; says: RegExp; never?: RegExp }[] = [
    {
      name: 'identity.secret holds only a newline',
      breakIt: (h) => writeFileSync(h.secretPath, '\n', { mode: 0o600 }),
      cause: 'secret-invalid',
      says: /the file is empty/,
    },
    { name: 'identity.secret is a directory', breakIt: (h) => mkdirSync(h.secretPath), cause: 'secret-unreadable', says: /EISDIR/ },
    { name: 'the disk fails to read identity.secret', breakIt: failReadsOfSecret, cause: 'disk-refused', says: /identity\.secret cannot be used: EIO/ },
    {
      name: 'hub.db refuses the row',
      breakIt: refuseWritesToStore,
      cause: 'disk-refused',
      says: /could not be made: hub\.db in the data dir refused it \(SQLITE_READONLY\)$/,
      // The store's advice to a request, wrong for an identity the Hub retries by itself.
      never: /retry in a moment/,
    },
    { name: 'the store is closed', breakIt: (h) => h.db.close(), cause: 'other', says: /could not be made/ },
  ];
  for (const c of firstMints) {
    it(`names a first mint that failed because ${c.name} as ${c.cause}`, async () => {
      const h = hub({ retryMs: 60_000 });
      try {
        c.breakIt(h);
        const state = failed(await h.identity.load());
        assert.equal(state.cause, c.cause);
        assert.match(state.error, c.says);
        if (c.never) assert.doesNotMatch(state.error, c.never);
        assert.equal(h.identity.summary()?.identityCause, c.cause);
      } finally {
        h.done();
      }
    });
  }

  const storedKeys: readonly { name: string; breakIt: (h: Hub) => void; cause: IdentityFailureCause; says: RegExp; never?: RegExp }[] = [
    {
      name: 'identity.secret was changed',
      breakIt: (h) => writeFileSync(h.secretPath, `${'ab'.repeat(32)}\n`),
      cause: 'key-unopenable',
      says: /rotate the identity/,
    },
    // Rotating would remove every pairing to cure what clears once the disk does.
    { name: 'the disk fails to read identity.secret', breakIt: failReadsOfSecret, cause: 'disk-refused', says: /could not be read \(EIO/, never: /rotate/ },
  ];
  for (const c of storedKeys) {
    it(`names a stored key that cannot be opened because ${c.name} as ${c.cause}, keeping its UUID`, async () => {
      const h = hub({ retryMs: 60_000 });
      try {
        const minted = ok(await h.identity.load());
        c.breakIt(h);
        const fresh = h.reopen();
        const state = failed(await fresh.load());
        assert.equal(state.cause, c.cause);
        assert.equal(state.nodeUuid, minted.nodeUuid);
        assert.match(state.error, c.says);
        if (c.never) assert.doesNotMatch(state.error, c.never);
        assert.equal(fresh.summary()?.identityCause, c.cause);
      } finally {
        h.done();
      }
    });
  }

  it('names the cause of a disk refusal before a rotation too', async () => {
    const h = hub();
    try {
      failReadsOfSecret(h);
      const problem = await h.identity.secretProblem();
      assert.equal(problem?.cause, 'disk-refused');
      assert.match(problem?.reason ?? '', /EIO/);
    } finally {
      h.done();
    }
  });
});

describe('NodeIdentity: made again at once for an operator once the disk answers', () => {
  it('makes the identity on the next operator action once hub.db takes writes again, with no wait for the retry timer', async () => {
    const h = hub({ retryMs: 60_000 });
    try {
      refuseWritesToStore(h);
      const refused = failed(await h.identity.load());
      assert.equal(refused.cause, 'disk-refused');
      storeBack(h);
      // A caller from outside is answered from memory: it cannot make this Hub derive a key and write.
      assert.equal(await h.identity.load(), refused);
      const made = ok(await h.identity.load({ retryDiskRefusal: true }));
      assert.equal(h.row()?.node_uuid, made.nodeUuid);
      assert.equal(await h.identity.load(), made, 'everyone sees the identity from then on');
      assert.equal(h.identity.summary()?.identityCause, null);
    } finally {
      h.done();
    }
  });

  it('opens a stored key on the next operator action once its secret reads again', async () => {
    const h = hub({ retryMs: 60_000 });
    try {
      const minted = ok(await h.identity.load());
      const secret = readFileSync(h.secretPath);
      failReadsOfSecret(h);
      const fresh = h.reopen();
      assert.equal(failed(await fresh.load()).cause, 'disk-refused');
      rmSync(h.secretPath);
      writeFileSync(h.secretPath, secret, { mode: 0o600 });
      const opened = ok(await fresh.load({ retryDiskRefusal: true }));
      assert.equal(opened.publicKey, minted.publicKey, 'the same key, not a new one');
    } finally {
      h.done();
    }
  });

  it('makes one identity when operator actions and the retry timer race for it', async () => {
    const background = new RecordingBackground({ logger: createLogger('silent'), clock: new ManualClock() });
    const h = hub({ retryMs: 60_000 });
    try {
      const identity = h.reopen({ background });
      refuseWritesToStore(h);
      failed(await identity.load());
      storeBack(h);
      const timer = background.periodic.find((p) => p.name === 'pool identity retry');
      assert.ok(timer);
      const [a, b] = await Promise.all([identity.load({ retryDiskRefusal: true }), identity.load({ retryDiskRefusal: true }), timer.task()]);
      assert.equal(ok(a).nodeUuid, ok(b).nodeUuid);
      assert.equal((h.db.prepare('SELECT COUNT(*) AS n FROM hub_pool_identity').get() as { n: number }).n, 1);
      assert.equal(h.logs.filter((l) => l.msg === 'pool identity minted').length, 1, 'minted once');
    } finally {
      h.done();
    }
  });
});
