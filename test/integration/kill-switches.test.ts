/**
 * The kill switches and their one precedence, as GET /status reports them on real Hub
 * processes: environment over setting, master over direction, and the prompt-ceiling
 * override. Pooling being off never stops a Hub serving its own engines. The CLI switches
 * ask before changing anything.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { Ollama } from 'ollama';
import { startSimEngine, type SimEngine } from '../../src/sim/engine.js';
import type { PoolStatus } from '../../src/status/pool-status.js';
import { runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';
import { startTogether } from '../helpers/start-together.js';

const MODEL = 'qwen3:8b';
const STATUS = '/api/inference/pool/status';
const SETTINGS = '/api/inference/pool/settings';

async function status(hub: HubProcess): Promise<PoolStatus> {
  const res = await hub.api<PoolStatus>('GET', STATUS);
  assert.equal(res.status, 200);
  return res.json;
}

async function patch(hub: HubProcess, body: Record<string, unknown>): Promise<void> {
  const res = await hub.api('PATCH', SETTINGS, body);
  assert.equal(res.status, 200, JSON.stringify(res.json));
}

/** A chat through the proxy with the OpenAI SDK; returns who served it. */
async function servedBy(hub: HubProcess): Promise<{ servedBy: string | null; backend: string | null; content: string }> {
  const client = new OpenAI({ baseURL: `${hub.pool}/v1`, apiKey: 'ollama', maxRetries: 0 });
  const { data, response } = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] }).withResponse();
  return {
    servedBy: response.headers.get('x-hub-pool-served-by'),
    backend: response.headers.get('x-hub-pool-backend'),
    content: data.choices[0]?.message.content ?? '',
  };
}

const ON = { enabled: true, disabledBy: null, envLocked: false };

describe('kill switches', () => {
  let engine: SimEngine;
  let plain: HubProcess;
  let userDisabled: HubProcess;
  let outboundDisabled: HubProcess;
  let ceiling: HubProcess;
  let ceilingOutOfRange: HubProcess;
  let ceilingFractional: HubProcess;

  before(async () => {
    engine = await startSimEngine({ dialect: 'ollama', models: [MODEL], timeScale: 0.01 });
    const withEngine = (env: Record<string, string> = {}) => startHubProcess({ env: { OLLAMA_URL: engine.url, ...env } });
    [plain, userDisabled, outboundDisabled, ceiling, ceilingOutOfRange, ceilingFractional] = await startTogether([
      withEngine(),
      withEngine({ HUB_POOL_USER_DISABLED: 'true' }),
      withEngine({ HUB_POOL_OUTBOUND_DISABLED: 'true' }),
      withEngine({ HUB_POOL_MAX_PROMPT_TOKENS: '16000' }),
      withEngine({ HUB_POOL_MAX_PROMPT_TOKENS: '512' }),
      withEngine({ HUB_POOL_MAX_PROMPT_TOKENS: '16000.5' }),
    ]);
  });
  after(async () => {
    await Promise.all([plain, userDisabled, outboundDisabled, ceiling, ceilingOutOfRange, ceilingFractional].filter(Boolean).map((h) => h.stop()));
    await engine?.close();
  });

  describe('GET /status', () => {
    it('reports an untouched Hub as on with no peers, both directions on, not routing', async () => {
      const s = await status(plain);
      assert.equal(s.enabled, true);
      assert.equal(s.disabledBy, null);
      assert.equal(s.reason, 'no_peers');
      assert.deepEqual(s.directions, { outbound: ON, inbound: ON });
      assert.equal(s.routingActive, false);
      assert.equal(s.localNode.maxPromptTokens, null);
      assert.equal(s.localNode.maxPromptTokensSetBy, null);
    });

    it('reports HUB_POOL_USER_DISABLED=true as off by the environment, both directions off', async () => {
      const s = await status(userDisabled);
      const off = { enabled: false, disabledBy: 'env', envLocked: false };
      assert.equal(s.enabled, false);
      assert.equal(s.disabledBy, 'env');
      assert.equal(s.reason, 'disabled_by_env');
      assert.deepEqual(s.directions, { outbound: off, inbound: off });
      assert.equal(s.routingActive, false);
    });

    it('does not let PATCH poolEnabled: true undo HUB_POOL_USER_DISABLED, though the setting is saved', async () => {
      await patch(userDisabled, { poolEnabled: false });
      assert.equal((await status(userDisabled)).reason, 'disabled_by_env', 'env is reported even when the setting is also off');
      await patch(userDisabled, { poolEnabled: true });
      const s = await status(userDisabled);
      assert.equal(s.settings.poolEnabled, true);
      assert.equal(s.enabled, false);
      assert.equal(s.disabledBy, 'env');
      assert.equal(s.reason, 'disabled_by_env');
    });

    it('reports poolEnabled: false as off by the setting, and comes back on when it is set true', async () => {
      await patch(plain, { poolEnabled: false });
      const off = await status(plain);
      assert.equal(off.enabled, false);
      assert.equal(off.disabledBy, 'setting');
      assert.equal(off.reason, 'disabled_by_setting');
      assert.deepEqual(off.directions, {
        outbound: { enabled: false, disabledBy: 'setting', envLocked: false },
        inbound: { enabled: false, disabledBy: 'setting', envLocked: false },
      });

      await patch(plain, { poolEnabled: true });
      const on = await status(plain);
      assert.equal(on.enabled, true);
      assert.equal(on.disabledBy, null);
      assert.equal(on.reason, 'no_peers');
      assert.deepEqual(on.directions, { outbound: ON, inbound: ON });
    });

    it('lets the master switch win over the directional ones it short-circuits', async () => {
      await patch(plain, { poolInboundEnabled: false });
      try {
        assert.equal((await status(plain)).reason, 'partially_disabled');
        await patch(plain, { poolEnabled: false });
        const s = await status(plain);
        assert.equal(s.reason, 'disabled_by_setting');
        assert.deepEqual(s.directions.outbound, { enabled: false, disabledBy: 'setting', envLocked: false });
      } finally {
        await patch(plain, { poolEnabled: true, poolInboundEnabled: true });
      }
      assert.equal((await status(plain)).reason, 'no_peers');
    });

    it('reports a directional setting as partially disabled, naming the setting', async () => {
      await patch(plain, { poolInboundEnabled: false });
      try {
        const s = await status(plain);
        assert.equal(s.enabled, true);
        assert.equal(s.reason, 'partially_disabled');
        assert.deepEqual(s.directions, { outbound: ON, inbound: { enabled: false, disabledBy: 'setting', envLocked: false } });
      } finally {
        await patch(plain, { poolInboundEnabled: true });
      }
    });

    it('reports HUB_POOL_OUTBOUND_DISABLED=true as partially disabled, outbound off by the environment', async () => {
      const s = await status(outboundDisabled);
      assert.equal(s.enabled, true);
      assert.equal(s.disabledBy, null);
      assert.equal(s.reason, 'partially_disabled');
      assert.deepEqual(s.directions, { outbound: { enabled: false, disabledBy: 'env', envLocked: true }, inbound: ON });
      assert.equal(s.routingActive, false);
      // The environment outranks the directional setting too.
      await patch(outboundDisabled, { poolOutboundEnabled: true });
      assert.deepEqual((await status(outboundDisabled)).directions.outbound, { enabled: false, disabledBy: 'env', envLocked: true });
    });

    it('names the master as what holds both directions off while poolEnabled is false, and still reports the outbound env lock', async () => {
      await patch(outboundDisabled, { poolEnabled: false });
      try {
        const s = await status(outboundDisabled);
        assert.equal(s.reason, 'disabled_by_setting');
        assert.deepEqual(s.directions, {
          outbound: { enabled: false, disabledBy: 'setting', envLocked: true },
          inbound: { enabled: false, disabledBy: 'setting', envLocked: false },
        });
      } finally {
        await patch(outboundDisabled, { poolEnabled: true });
      }
      assert.deepEqual((await status(outboundDisabled)).directions.outbound, { enabled: false, disabledBy: 'env', envLocked: true });
    });

    it('reports a valid HUB_POOL_MAX_PROMPT_TOKENS as the ceiling in force, set by the environment, over the setting', async () => {
      const s = await status(ceiling);
      assert.equal(s.localNode.maxPromptTokens, 16_000);
      assert.equal(s.localNode.maxPromptTokensSetBy, 'env');
      await patch(ceiling, { poolMaxPromptTokens: 20_000 });
      const after = await status(ceiling);
      assert.equal(after.settings.poolMaxPromptTokens, 20_000);
      assert.equal(after.localNode.maxPromptTokens, 16_000);
      assert.equal(after.localNode.maxPromptTokensSetBy, 'env');
    });

    for (const [label, hubOf] of [
      ['out of range (512)', () => ceilingOutOfRange],
      ['not a whole number (16000.5)', () => ceilingFractional],
    ] as const) {
      it(`ignores a HUB_POOL_MAX_PROMPT_TOKENS ${label}: no ceiling, and the setting stays in charge`, async () => {
        const hub = hubOf();
        const s = await status(hub);
        assert.equal(s.localNode.maxPromptTokens, null);
        assert.equal(s.localNode.maxPromptTokensSetBy, null);
        await patch(hub, { poolMaxPromptTokens: 4096 });
        const after = await status(hub);
        assert.equal(after.localNode.maxPromptTokens, 4096);
        assert.equal(after.localNode.maxPromptTokensSetBy, 'setting');
      });
    }
  });

  describe('a Hub with pooling off still serves its own engines', () => {
    it('serves through the proxy under HUB_POOL_USER_DISABLED=true, in both dialects', async () => {
      const before = engine.state().requests;
      const openai = await servedBy(userDisabled);
      assert.equal(openai.servedBy, 'local');
      assert.equal(openai.backend, 'ollama');
      assert.ok(openai.content.length > 0);
      const ollama = new Ollama({ host: userDisabled.pool });
      const native = await ollama.chat({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: false });
      assert.equal(native.done, true);
      assert.ok(native.message.content.length > 0);
      assert.equal(engine.state().requests, before + 2);
    });

    it('serves through the proxy while poolEnabled is false', async () => {
      await patch(plain, { poolEnabled: false });
      try {
        assert.equal((await status(plain)).reason, 'disabled_by_setting');
        const res = await servedBy(plain);
        assert.equal(res.servedBy, 'local');
        assert.ok(res.content.length > 0);
      } finally {
        await patch(plain, { poolEnabled: true });
      }
    });

    it('serves through the proxy with outbound switched off', async () => {
      const res = await servedBy(outboundDisabled);
      assert.equal(res.servedBy, 'local');
    });
  });

  describe('cihub pool enable|disable', () => {
    const settingsBytes = () => readFileSync(join(plain.dataDir, 'settings.json'));

    it('turns pooling off and on again with --yes', async () => {
      const off = await runCli(['pool', 'disable', '--yes'], { dataDir: plain.dataDir });
      assert.equal(off.code, 0, off.stderr);
      assert.match(off.stdout, /off/);
      let s = await status(plain);
      assert.equal(s.settings.poolEnabled, false);
      assert.equal(s.reason, 'disabled_by_setting');

      const on = await runCli(['pool', 'enable', '--yes'], { dataDir: plain.dataDir });
      assert.equal(on.code, 0, on.stderr);
      assert.match(on.stdout, /on/);
      s = await status(plain);
      assert.equal(s.settings.poolEnabled, true);
      assert.equal(s.reason, 'no_peers');
    });

    it('prints the resulting settings as JSON with --json', async () => {
      const res = await runCli(['pool', 'disable', '--yes', '--json'], { dataDir: plain.dataDir });
      try {
        assert.equal(res.code, 0, res.stderr);
        assert.equal((JSON.parse(res.stdout) as { poolEnabled: boolean }).poolEnabled, false);
      } finally {
        await patch(plain, { poolEnabled: true });
      }
    });

    for (const command of ['disable', 'enable'] as const) {
      it(`refuses \`pool ${command}\` without --yes when it cannot ask, in one sentence, changing nothing`, async () => {
        if (command === 'enable') await patch(plain, { poolEnabled: false });
        try {
          const bytesBefore = settingsBytes();
          const res = await runCli(['pool', command], { dataDir: plain.dataDir });
          assert.notEqual(res.code, 0);
          assert.equal(res.stdout, '');
          const lines = res.stderr.trim().split('\n');
          assert.equal(lines.length, 1, `one line on stderr, got: ${res.stderr}`);
          assert.match(lines[0]!, /--yes/);
          assert.match(lines[0]!, /CI_HUB_ASSUME_YES=1/);
          assert.match(lines[0]!, /^[^.?!]+\.$/, `one sentence, got: ${lines[0]}`);
          assert.doesNotMatch(res.stderr, /^\s+at /m);
          assert.ok(settingsBytes().equals(bytesBefore), 'settings.json is untouched');
          assert.equal((await status(plain)).settings.poolEnabled, command === 'enable' ? false : true);
        } finally {
          await patch(plain, { poolEnabled: true });
        }
      });
    }

    it('takes CI_HUB_ASSUME_YES=1 in place of --yes', async () => {
      const off = await runCli(['pool', 'disable'], { dataDir: plain.dataDir, env: { CI_HUB_ASSUME_YES: '1' } });
      assert.equal(off.code, 0, off.stderr);
      assert.equal((await status(plain)).settings.poolEnabled, false);
      const on = await runCli(['pool', 'enable'], { dataDir: plain.dataDir, env: { CI_HUB_ASSUME_YES: '1' } });
      assert.equal(on.code, 0, on.stderr);
      assert.equal((await status(plain)).settings.poolEnabled, true);
    });

    it('says plainly that pooling stays off when `pool enable` runs under HUB_POOL_USER_DISABLED', async () => {
      const res = await runCli(['pool', 'enable', '--yes'], { dataDir: userDisabled.dataDir });
      assert.equal(res.code, 0, res.stderr);
      assert.equal(
        res.stdout,
        "Hub Pool stays off: the poolEnabled setting is saved as true, but HUB_POOL_USER_DISABLED=true in this Hub's environment keeps pooling off until it is removed and the Hub restarted.\n",
      );
      assert.doesNotMatch(res.stdout, /is now on/);
      assert.equal((await status(userDisabled)).reason, 'disabled_by_env');
    });

    it('says which direction stays off, and why, when `pool enable` turns the pool back on', async () => {
      await patch(outboundDisabled, { poolEnabled: false, poolInboundEnabled: false });
      try {
        const res = await runCli(['pool', 'enable', '--yes'], { dataDir: outboundDisabled.dataDir });
        assert.equal(res.code, 0, res.stderr);
        assert.equal(
          res.stdout,
          "Hub Pool is now on (poolEnabled: true). Sending work to peers stays off: HUB_POOL_OUTBOUND_DISABLED=true in this Hub's environment keeps it off until it is removed and the Hub restarted. Serving peers stays off: poolInboundEnabled is false (turn it on with `cihub pool set poolInboundEnabled true`).\n",
        );
      } finally {
        await patch(outboundDisabled, { poolEnabled: true, poolInboundEnabled: true });
      }
    });

    it('puts the lock beside the settings in `pool enable --json`: what is in force and which variable forces it', async () => {
      const locked = await runCli(['pool', 'enable', '--yes', '--json'], { dataDir: userDisabled.dataDir });
      assert.equal(locked.code, 0, locked.stderr);
      const doc = JSON.parse(locked.stdout) as { poolEnabled: boolean; enabled: boolean; disabledBy: string | null; lockedBy: string | null };
      assert.deepEqual([doc.poolEnabled, doc.enabled, doc.disabledBy, doc.lockedBy], [true, false, 'env', 'HUB_POOL_USER_DISABLED']);
      const free = await runCli(['pool', 'enable', '--yes', '--json'], { dataDir: plain.dataDir });
      const plainDoc = JSON.parse(free.stdout) as typeof doc;
      assert.deepEqual([plainDoc.poolEnabled, plainDoc.enabled, plainDoc.disabledBy, plainDoc.lockedBy], [true, true, null, null]);
    });
  });
});
