/**
 * GET /api/hub/logs against a real Hub: the log file the Hub writes, read back as parsed lines
 * for the dashboard's Logs view, filtered by level and time, followed through a cursor, and
 * served to the operator only (a qa:read key reads status and the routing log, nothing else).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { eventually, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

interface Entry {
  readonly time: string | null;
  readonly level: number | null;
  readonly msg: string;
  readonly fields: Record<string, unknown>;
  readonly cut: boolean;
}
interface Window {
  readonly entries: Entry[];
  readonly cursor: string | null;
  readonly more: boolean;
  readonly olderNotScanned: boolean;
  readonly gap: boolean;
}

describe('GET /api/hub/logs', () => {
  let hub: HubProcess;
  const logFile = () => join(hub.dataDir, 'logs', 'hub.log');
  const fileText = () => {
    try {
      return readFileSync(logFile(), 'utf8');
    } catch {
      return ''; // not written yet
    }
  };
  const fileHas = (text: string) => eventually(() => fileText().includes(text), `the log file to hold "${text}"`);
  const logs = (query = '', headers: Record<string, string> = {}) => hub.api<Window>('GET', `/api/hub/logs${query}`, undefined, headers);

  before(async () => {
    hub = await startHubProcess();
    await fileHas('hub listening');
  });
  after(async () => {
    await hub?.stop();
  });

  it('gives the operator the newest lines, oldest first, each with time, level, message and fields', async () => {
    assert.equal((await hub.api('PATCH', '/api/inference/pool/settings', { poolHealthPollSeconds: 45 })).status, 200);
    await fileHas('pool settings changed');
    const res = await logs();
    assert.equal(res.status, 200);
    const msgs = res.json.entries.map((e) => e.msg);
    assert.ok(msgs.indexOf('hub listening') >= 0 && msgs.indexOf('hub listening') < msgs.indexOf('pool settings changed'), 'oldest first');
    const changed = res.json.entries.find((e) => e.msg === 'pool settings changed')!;
    assert.equal(changed.level, 30);
    assert.ok(changed.time !== null && Number.isFinite(Date.parse(changed.time)));
    assert.deepEqual(changed.fields.changed, ['poolHealthPollSeconds']);
    assert.equal('pid' in changed.fields, false, 'service, pid and hostname are left out');
    assert.equal(typeof res.json.cursor, 'string');

    const newest = await logs('?limit=1');
    assert.equal(newest.json.entries.length, 1);
    assert.deepEqual(newest.json.entries[0], res.json.entries.at(-1), 'limit keeps the newest');
  });

  it('filters by level and by time', async () => {
    // Without a tailscale on its PATH the Hub says so at warn when it first asks.
    await hub.api('GET', '/api/inference/pool/tailscale');
    await fileHas('this Hub counts as not connected to a tailnet');
    const warnings = await logs('?level=warn');
    assert.equal(warnings.status, 200);
    assert.ok(warnings.json.entries.length > 0);
    assert.ok(
      warnings.json.entries.every((e) => e.level !== null && e.level >= 40),
      'nothing below warn',
    );
    assert.ok(warnings.json.entries.some((e) => e.msg.includes('this Hub counts as not connected to a tailnet')));

    const future = await logs(`?since=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
    assert.deepEqual(future.json.entries, []);
    const lastDay = await logs('?since=1d');
    assert.ok(lastDay.json.entries.some((e) => e.msg === 'hub listening'));
  });

  it('follows: after the cursor come only the lines written since, and a PIN minted meanwhile never shows its digits', async () => {
    const start = await logs('?limit=1');
    const minted = await hub.api<{ pin: string }>('POST', '/api/inference/pool/pairing-pin');
    assert.equal(minted.status, 200);
    await hub.api('PATCH', '/api/inference/pool/settings', { poolHealthPollSeconds: 50 });
    await fileHas('"poolHealthPollSeconds"');
    const next = await eventually(async () => {
      const w = await logs(`?after=${encodeURIComponent(start.json.cursor!)}`);
      return w.json.entries.some((e) => e.msg === 'pool settings changed') ? w : null;
    }, 'the new lines after the cursor');
    assert.equal(next.json.gap, false);
    const msgs = next.json.entries.map((e) => e.msg);
    assert.ok(msgs.includes('pairing PIN minted'));
    assert.ok(!msgs.includes('hub listening'), 'nothing from before the cursor');
    assert.ok(!JSON.stringify(next.json).includes(minted.json.pin));
    const again = await logs(`?after=${encodeURIComponent(next.json.cursor!)}&level=info`);
    assert.ok(!again.json.entries.some((e) => e.msg === 'pool settings changed'), 'a line is served once');
  });

  it('answers the operator only: a qa:read key is refused as the spec says, an inference key and no key are not signed in', async () => {
    const qa = await hub.api<{ key: string }>('POST', '/api/hub/api-keys', { name: 'monitor', scope: 'qa:read' });
    const inference = await hub.api<{ key: string }>('POST', '/api/hub/api-keys', { name: 'app', scope: 'inference' });
    const asKey = async (key: string | null) => {
      const res = await request(`${hub.url}/api/hub/logs`, { headers: key === null ? {} : { authorization: `Bearer ${key}` } });
      const body = (await res.body.json()) as { error?: { code: string } };
      return [res.statusCode, body.error?.code];
    };
    assert.deepEqual(await asKey(qa.json.key), [403, 'AUTH_ERROR_QA_READ_KEY_ROUTE_NOT_ALLOWED']);
    assert.deepEqual(await asKey(inference.json.key), [401, 'HUB_ERR_UNAUTHORIZED']);
    assert.deepEqual(await asKey(null), [401, 'HUB_ERR_UNAUTHORIZED']);
    const status = await request(`${hub.url}/api/inference/pool/status`, { headers: { authorization: `Bearer ${qa.json.key}` } });
    await status.body.dump();
    assert.equal(status.statusCode, 200, 'the same key still reads status');
  });

  it('refuses a query it cannot read with a sentence naming the parameter', async () => {
    for (const [query, names] of [
      ['?level=loud', /level must be one of trace, debug, info, warn, error, fatal/],
      ['?level=constructor', /level must be one of trace, debug, info, warn, error, fatal/],
      ['?limit=0', /limit must be a whole number from 1 to 1000/],
      ['?limit=1001', /limit must be/],
      ['?since=yesterday', /since must be/],
      ['?after=not-a-cursor', /after must be the cursor/],
      ['?level=warn&level=info', /level must be given once/],
    ] as const) {
      const res = await hub.api<{ error: { code: string; message: string } }>('GET', `/api/hub/logs${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.json.error.code, 'HUB_ERR_QUERY_INVALID');
      assert.match(res.json.error.message, names);
    }
  });
});
