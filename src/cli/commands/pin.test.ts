import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { loadOrCreateOperatorKey, writeHubInfo } from '../../config/data-dir.js';
import { ensureDataDir } from '../../config/data-dir-modes.js';
import { SettingsFile } from '../../config/settings-file.js';
import { toHubError } from '../../http/error-mapping.js';
import { registerPinRoutes } from '../../http/pin-routes.js';
import { HUB_BOOT_PATH, registerHubBootRoutes } from '../../http/hub-boot-routes.js';
import { pinStatuses, type PinTargetFacts } from '../../status/pool-status.js';
import { CliError } from '../hub-client.js';
import { CIHUB_VERSION } from '../version.js';
import { normalizePinTarget, pinCommand, pinDoneLines, pinQuestion, unpinCommand } from './pin.js';
import { backendViewFixture } from '../../engines/backend-view.fixture.js';

describe('normalizePinTarget', () => {
  const ok: readonly [string, string][] = [
    ['local', 'local'],
    ['Local', 'local'],
    ['Core-1.Tail0.ts.net.', 'core-1.tail0.ts.net'],
  ];
  for (const [raw, target] of ok) it(`${raw} → ${target}`, () => assert.equal(normalizePinTarget(raw), target));
  for (const raw of ['core-1', 'https://core-1.tail0.ts.net', '100.64.0.1', '']) {
    it(`refuses ${JSON.stringify(raw)} in one sentence, before asking anything`, () =>
      assert.throws(
        () => normalizePinTarget(raw),
        (err: unknown) =>
          err instanceof CliError &&
          /^The pin target must be "local" or a peer's MagicDNS name/.test(err.message) &&
          /nothing was changed\.$/.test(err.message),
      ));
  }
});

/** Status as the Hub would report it: a healthy local Ollama listing one model, no usable peer. */
const HEALTHY_LOCAL_NO_PEER: PinTargetFacts = {
  backends: [backendViewFixture(['m'])],
  usablePeers: [],
  unservable: new Set(),
};

describe('pinQuestion and pinDoneLines', () => {
  it('asks about a model pin by its id and says failover stays', () =>
    assert.match(pinQuestion('core-1.tail0.ts.net', 'llama3.2:3b'), /^Pin model llama3\.2:3b to core-1\.tail0\.ts\.net\? .*failover/));
  it('says which pin a new one replaces, and nothing when the target stays', () => {
    assert.match(
      pinQuestion('local', 'm', 'core-1.tail0.ts.net'),
      /^Pin model m to this Hub's own engines\? This replaces its pin to core-1\.tail0\.ts\.net\. /,
    );
    assert.doesNotMatch(pinQuestion('local', 'm', 'local'), /replaces/);
  });
  it('asks about the default pin as every model without its own', () =>
    assert.match(pinQuestion('local', undefined), /^Pin every model without its own pin to this Hub's own engines\?/));

  it('warns when the target cannot be preferred right now', () => {
    const pin = { scope: 'model', model: 'm', target: 'core-1.tail0.ts.net' } as const;
    const [status] = pinStatuses([pin], HEALTHY_LOCAL_NO_PEER);
    const lines = pinDoneLines(pin, status);
    assert.equal(lines[0], 'Pinned model m to core-1.tail0.ts.net.');
    assert.match(lines[1] ?? '', /^Note: core-1\.tail0\.ts\.net cannot take m right now \(.*not serving that model\)/);
    assert.equal(lines.at(-1), 'Remove it with: cihub pool unpin --model m');
  });

  it('says when no local engine serves the pinned model', () => {
    const pin = { scope: 'model', model: 'other:1b', target: 'local' } as const;
    assert.match(pinDoneLines(pin, pinStatuses([pin], HEALTHY_LOCAL_NO_PEER)[0])[1] ?? '', /^Note: no healthy local engine here serves other:1b right now/);
  });

  it('says nothing more when the target is available', () => {
    const pin = { scope: 'default', model: null, target: 'local' } as const;
    assert.deepEqual(pinDoneLines(pin, pinStatuses([pin], HEALTHY_LOCAL_NO_PEER)[0]), [
      'Pinned every model without its own pin to local.',
      'Remove it with: cihub pool unpin',
    ]);
  });
});

describe('pinCommand and unpinCommand against the routes', () => {
  let dir: string;
  let app: FastifyInstance;
  let settings: SettingsFile;
  const flags = () => ({ dataDir: dir, yes: true, assumeYes: false, json: false });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cihub-pin-cli-'));
    ensureDataDir(dir);
    const key = loadOrCreateOperatorKey(dir);
    settings = new SettingsFile(dir);
    app = Fastify({ logger: false });
    app.setErrorHandler((err, _request, reply) => {
      const e = toHubError(err);
      void reply.code(e.status).send(e.toBody());
    });
    app.addHook('preHandler', async (request, reply) => {
      if (request.url === HUB_BOOT_PATH) return;
      if (request.headers.authorization !== `Bearer ${key}`) await reply.code(401).send({ error: { code: 'HUB_ERR_UNAUTHORIZED', message: 'no' } });
    });
    registerPinRoutes(app, {
      settings,
      logger: pino({ level: 'silent' }),
      peers: { self: async () => ({ nodeFqdn: 'hub-a.tail0.ts.net', tailnetSuffix: 'tail0.ts.net', tailscaleConnected: true, source: 'env' as const }) },
    });
    registerHubBootRoutes(app, { bootId: 'pin-test-boot', operatorKey: key });
    app.get('/api/inference/pool/status', async () => ({ pins: pinStatuses(settings.get().poolPins, HEALTHY_LOCAL_NO_PEER) }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    writeHubInfo(dir, {
      url: `http://127.0.0.1:${port}`,
      port,
      pid: process.pid,
      startedAt: new Date().toISOString(),
      bootId: 'pin-test-boot',
      version: CIHUB_VERSION,
    });
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pins a model at a peer that is not usable, and says so', async () => {
    const out = await pinCommand({ ...flags(), target: 'Core-1.tail0.ts.net', model: 'org/m:7b' });
    assert.match(out, /^Pinned model org\/m:7b to core-1\.tail0\.ts\.net\.\nNote: core-1\.tail0\.ts\.net cannot take org\/m:7b right now/);
    assert.deepEqual(settings.get().poolPins, [{ scope: 'model', model: 'org/m:7b', target: 'core-1.tail0.ts.net' }]);
  });

  it('names the pin it replaces: a model holds one pin, so pinning it elsewhere moves it', async () => {
    const out = await pinCommand({ ...flags(), target: 'core-2.tail0.ts.net', model: 'org/m:7b' });
    assert.match(out, /^Pinned model org\/m:7b to core-2\.tail0\.ts\.net \(it was pinned to core-1\.tail0\.ts\.net\)\.\n/);
    assert.deepEqual(settings.get().poolPins, [{ scope: 'model', model: 'org/m:7b', target: 'core-2.tail0.ts.net' }]);
    assert.match(
      await pinCommand({ ...flags(), target: 'core-1.tail0.ts.net', model: 'org/m:7b' }),
      /^Pinned model org\/m:7b to core-1\.tail0\.ts\.net \(it was pinned to core-2/,
    );
  });

  it('sets the default pin without --model, and prints JSON with --json', async () => {
    const out = JSON.parse(await pinCommand({ ...flags(), json: true, target: 'local' })) as { pin: unknown; pins: unknown[] };
    assert.deepEqual(out.pin, { scope: 'default', model: null, target: 'local' });
    assert.equal(out.pins.length, 2);
  });

  it('removes a model pin whose id holds / and :', async () => {
    const out = await unpinCommand({ ...flags(), model: 'org/m:7b' });
    assert.equal(out, 'Removed the pin for model org/m:7b.\n1 pin left; `cihub pool status` lists them.\n');
  });

  it('says in one sentence when there is no such pin', async () => {
    await assert.rejects(
      unpinCommand({ ...flags(), model: 'org/m:7b' }),
      (err: unknown) => err instanceof CliError && err.message === 'This Hub has no pin for model org/m:7b; nothing was changed.',
    );
  });

  it('removes the default pin', async () => {
    assert.equal(await unpinCommand(flags()), 'Removed the default pin.\nNo pins are left: the ranker alone decides.\n');
    await assert.rejects(unpinCommand(flags()), /This Hub has no default pin; nothing was changed\./);
  });
});
