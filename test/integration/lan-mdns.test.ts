/**
 * The opt-in LAN source between a real Hub process and a second mDNS responder in this test
 * (guide, "How Hubs find each other"): switched on through the settings API, the Hub announces
 * itself on the local network and its discovery scan lists the responder as an unverified row
 * that the CLI prints without a pair command; switched off, the scan reports the source off.
 * Multicast goes over the loopback interface (224.0.0.251:5353 on 127.0.0.1): the Hub listens on
 * 127.0.0.1, so it announces and listens there, and the test's responder does the same.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import makeMdns from 'multicast-dns';
import type { Discovery } from '../../src/discovery/discovery-service.js';
import { announcementRecords, heardFromPacket, LAN_SERVICE_TYPE } from '../../src/discovery/lan-announcement.js';
import { eventually, runCli, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

const SUFFIX = 'tail0.ts.net';
const HUB_NAME = `hub-a-${randomBytes(3).toString('hex')}.${SUFFIX}`;
/** Unique per run, so another test on this machine announcing Hubs cannot be mistaken for it. */
const STUDIO_ID = randomBytes(4).toString('hex');
const STUDIO_NAME = `studio-${STUDIO_ID}.${SUFFIX}`;

describe('LAN discovery over mDNS with a real Hub', () => {
  let hub: HubProcess;
  let responder: ReturnType<typeof makeMdns>;

  before(async () => {
    hub = await startHubProcess({ env: { HUB_NODE_FQDN: HUB_NAME, HUB_TAILNET_SUFFIX: SUFFIX } });
    responder = makeMdns({ interface: '127.0.0.1', bind: '0.0.0.0' });
    const studio = announcementRecords({ id: STUDIO_ID, hostLabel: `studio-${STUDIO_ID}`, nodeFqdn: STUDIO_NAME, port: 5002 });
    responder.on('query', (q) => {
      if (q.questions.some((x) => x.name === LAN_SERVICE_TYPE)) responder.respond({ answers: studio });
    });
    await new Promise<void>((resolve) => responder.once('ready', () => resolve()));
  });
  after(async () => {
    responder.destroy();
    await hub.stop();
  });

  // A scan listens for a fixed window (LAN_BROWSE_WINDOW_MS, 1.5 s) and then answers with what it
  // heard. On a loaded machine the responder's answer can come after the window closes, and that
  // scan rightly lists nothing from it; so the scans below are repeated until one heard it.
  const scanThatHeardStudio = () =>
    eventually(async () => {
      const found = await hub.api<Discovery>('GET', '/api/inference/pool/peers/discoverable');
      return found.json.lan?.rows.some((r) => r.claimedName === STUDIO_NAME) ? found : null;
    }, `a scan that heard ${STUDIO_NAME}`);

  it('is off by default: the scan reports the LAN source off and lists nothing from it', async () => {
    const found = await hub.api<Discovery>('GET', '/api/inference/pool/peers/discoverable');
    assert.equal(found.status, 200);
    assert.deepEqual(found.json.lan, { state: 'off', detail: null, rows: [], coveredByTailnet: 0, notListed: 0 });
  });

  it('once switched on, announces this Hub on the local network', async () => {
    assert.equal((await hub.api('PATCH', '/api/inference/pool/settings', { poolLanDiscovery: true })).status, 200);
    const answeredBy = new Set<string>();
    responder.on('response', (packet, rinfo) => {
      for (const h of heardFromPacket(packet, rinfo.address)) if (h.claimedName !== null) answeredBy.add(h.claimedName);
    });
    await eventually(() => {
      responder.query({ questions: [{ name: LAN_SERVICE_TYPE, type: 'PTR' }] });
      return answeredBy.has(HUB_NAME);
    }, 'the Hub answers an mDNS query for _cihub._tcp');
  });

  it('lists a Hub heard on the LAN as unverified, and not itself', async () => {
    const found = await scanThatHeardStudio();
    assert.equal(found.json.lan?.state, 'ok');
    const studio = found.json.lan!.rows.find((r) => r.claimedName === STUDIO_NAME);
    assert.ok(studio, JSON.stringify(found.json.lan));
    assert.deepEqual([studio.source, studio.verified, studio.displayName, studio.port], ['mdns', false, `studio-${STUDIO_ID}`, 5002]);
    assert.ok(!found.json.lan!.rows.some((r) => r.claimedName === HUB_NAME), 'its own announcement is not a row');
    assert.ok(!found.json.candidates.some((c) => c.nodeFqdn === STUDIO_NAME), 'a LAN row is never a pairable candidate');
  });

  it('cihub pool discover prints it as Unverified with no pair command', async () => {
    const run = await eventually(async () => {
      const scan = await runCli(['pool', 'discover'], { dataDir: hub.dataDir });
      return scan.stdout.includes(STUDIO_NAME) ? scan : null;
    }, `cihub pool discover to hear ${STUDIO_NAME}`);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^ {2}studio-${STUDIO_ID}\\s+\\S+:5002\\s+Unverified, claims ${STUDIO_NAME.replaceAll('.', '\\.')}$`, 'm'));
    // The only pair command printed is the by-address recipe of the empty state, never one for a row.
    assert.doesNotMatch(run.stdout, /cihub pool pair (<name>|studio)/);
  });

  it('switched off again, the scan reports the source off', async () => {
    assert.equal((await hub.api('PATCH', '/api/inference/pool/settings', { poolLanDiscovery: false })).status, 200);
    const found = await hub.api<Discovery>('GET', '/api/inference/pool/peers/discoverable');
    assert.equal(found.json.lan?.state, 'off');
    assert.match(hub.log(), /LAN discovery \(mDNS\) off: socket closed/);
  });
});
