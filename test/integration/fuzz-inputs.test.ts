/**
 * Generated inputs against a real Hub process (issue 15, item 4): the body of an unauthenticated
 * pairing request, the settings PATCH and the routing-log query. Whatever is sent, the Hub
 * answers it (never a 5xx, never a dropped connection), keeps running, and a refusal leaves
 * nothing behind: no peer row for a refused pairing request, settings.json byte for byte as it
 * was for a refused PATCH. `npm test` tries a bounded number of cases per property;
 * `npm run test:fuzz` tries many more (test/helpers/fuzz-runs.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { HubProcess } from '../helpers/hub-process.js';
import { fuzzRuns } from '../helpers/fuzz-runs.js';
import { SPEC_DEFAULT_SETTINGS } from '../helpers/spec-defaults.js';
import { fqdn, isAlive, peers, POOL, reservePorts, send, startNamedHub } from './pairing-fixtures.js';

/** Each case is a few loopback requests: this many keep a property to a few seconds. */
const BOUNDED_RUNS = 60;
const SETTINGS_PATH = `${POOL}/settings`;

/** JSON of any shape, a few levels deep, with the awkward numbers JSON can carry. */
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(-1, 0, 1, 1e308, -1e308, 2 ** 53, 0.5, '', '0', 'true', null, [], {}));
/** Text that is usually not JSON at all, line breaks and odd code points included. */
const anyText = fc.string({ unit: 'binary', maxLength: 200 });
/** A body: JSON text of any value, or raw text. */
const anyBody = fc.oneof(
  anyJson.map((v) => JSON.stringify(v) ?? 'null'),
  anyText,
);

describe('generated input against a running Hub', () => {
  let hub: HubProcess;

  before(async () => {
    const ports = await reservePorts(['hub']);
    hub = await startNamedHub({ name: fqdn('fuzzed'), port: ports.hub, origins: {} });
  });
  after(async () => {
    await hub?.stop();
  });

  it('answers any pairing-request body without a 5xx, and a refused one writes no peer row', async () => {
    const token = () => randomBytes(32).toString('base64url');
    // Near-valid fields as often as wild ones, so the checks past the first are reached too.
    const body = fc.oneof(
      anyBody,
      fc
        .record(
          {
            fromNodeFqdn: fc.oneof(
              fc.constantFrom(fqdn('alpha'), fqdn('fuzzed'), 'evil.example.com', `${fqdn('a')}.`, `http://${fqdn('a')}`, fqdn('a').toUpperCase()),
              anyText,
              anyJson,
            ),
            token: fc.oneof(
              fc.constant(null).map(() => token()),
              anyText,
              anyJson,
            ),
            pin: fc.oneof(fc.constantFrom('000000', '123456', 123456, null), anyText, anyJson),
            nodeUuid: fc.oneof(fc.uuid(), anyText, anyJson),
            publicKey: fc.oneof(fc.constant(randomBytes(32).toString('base64url')), anyText, anyJson),
            extra: anyJson,
          },
          { requiredKeys: [] },
        )
        .map((o) => JSON.stringify(o)),
    );
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const before = await peers(hub);
        const res = await send(hub.url, 'POST', `${POOL}/pair/request`, { body: payload });
        assert.ok(res.status < 500, `${res.status} for ${JSON.stringify(payload)}: ${res.text}`);
        if (res.status >= 400) assert.deepEqual(await peers(hub), before, `a refused request (${res.status}) wrote a peer row`);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
    assert.ok(isAlive(hub));
  });

  it('answers any routing-log query with 200 or 400', async () => {
    const key = fc.oneof(fc.constantFrom('limit', 'since'), anyText);
    const value = fc.oneof(
      fc.integer({ min: -5, max: 100_000 }).map(String),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constantFrom(
        '2026-11-30T12:00:00',
        '2026-11-30T12:00:00+01:00',
        '2026-11-30T12:00:00 01:00',
        '9999-12-31T23:59:59.999Z',
        '2026-02-30T00:00:00Z',
        '1e3',
        ' 5',
        '0x10',
      ),
      anyText,
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(key, value), { maxLength: 4 }), async (pairs) => {
        const query = new URLSearchParams(pairs).toString();
        const res = await hub.api('GET', `${POOL}/routing-log?${query}`);
        assert.ok(res.status === 200 || res.status === 400, `${res.status} for ?${query}: ${JSON.stringify(res.json)}`);
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
    assert.ok(isAlive(hub));
  });

  // Last: an accepted PATCH changes how the Hub behaves, and the properties above want the defaults.
  it('answers any settings PATCH with 200 or 400, and a refused one leaves settings.json and GET as they were', async () => {
    const settingsFile = join(hub.dataDir, 'settings.json');
    const field = fc.oneof(fc.constantFrom(...Object.keys(SPEC_DEFAULT_SETTINGS), '__proto__', 'constructor', 'poolenabled'), anyText);
    const value = fc.oneof(anyJson, fc.integer({ min: -1, max: 300_000 }), fc.boolean());
    const body = fc.oneof(
      anyBody,
      fc.dictionary(field, value, { maxKeys: 4 }).map((o) => JSON.stringify(o)),
    );
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        const fileBefore = readFileSync(settingsFile);
        const { json: before } = await hub.api('GET', SETTINGS_PATH);
        const res = await hub.api('PATCH', SETTINGS_PATH, payload, { 'content-type': 'application/json' });
        assert.ok(res.status === 200 || res.status === 400, `${res.status} for ${payload}: ${JSON.stringify(res.json)}`);
        if (res.status === 400) {
          assert.ok(readFileSync(settingsFile).equals(fileBefore), `a refused PATCH rewrote settings.json: ${payload}`);
          assert.deepEqual((await hub.api('GET', SETTINGS_PATH)).json, before);
        }
      }),
      { numRuns: fuzzRuns(BOUNDED_RUNS) },
    );
    assert.ok(isAlive(hub));
  });
});
