import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  announcementRecords,
  heardFromPacket,
  instanceName,
  LAN_SERVICE_TYPE,
  MAX_RECORDS_PER_PACKET,
  queryAsksForHubs,
  type LanSelf,
} from './lan-announcement.js';

const HUB_B: LanSelf = { id: 'b0b0b0b0', hostLabel: 'Studio.local', nodeFqdn: 'studio.tail0.ts.net', port: 5002 };
const FROM = '192.168.1.42';

describe('a Hub announcement heard on the LAN', () => {
  it('reads back what a Hub announces: its claimed name, host, id, port and the sender address', () => {
    assert.deepEqual(heardFromPacket({ answers: announcementRecords(HUB_B) }, FROM), [
      { instance: instanceName(HUB_B), id: 'b0b0b0b0', hostLabel: 'studio', claimedName: 'studio.tail0.ts.net', address: FROM, port: 5002 },
    ]);
  });

  it('reads TXT strings as the wire delivers them (buffers), and records from the additionals section', () => {
    const [ptr, srv, txt] = announcementRecords(HUB_B);
    const heard = heardFromPacket({ answers: [ptr], additionals: [srv, { ...txt, data: (txt!.data as string[]).map((s) => Buffer.from(s)) }] }, FROM);
    assert.equal(heard[0]?.claimedName, 'studio.tail0.ts.net');
    assert.equal(heard[0]?.port, 5002);
  });

  it('lists a PTR with no SRV or TXT with only the sender address', () => {
    const heard = heardFromPacket({ answers: [{ name: LAN_SERVICE_TYPE, type: 'PTR', data: `bare.${LAN_SERVICE_TYPE}` }] }, FROM);
    assert.deepEqual(heard, [{ instance: `bare.${LAN_SERVICE_TYPE}`, id: null, hostLabel: null, claimedName: null, address: FROM, port: null }]);
  });

  it('ignores malformed packets and records without throwing', () => {
    for (const packet of [null, 'x', 42, {}, { answers: 'no' }, { answers: [null, 7, 'x', { name: 1, type: 'PTR', data: 'a' }] }]) {
      assert.deepEqual(heardFromPacket(packet, FROM), []);
    }
    const bad = [
      { name: LAN_SERVICE_TYPE, type: 'PTR', data: { not: 'a string' } },
      { name: LAN_SERVICE_TYPE, type: 'PTR', data: `other._http._tcp.local` },
      { name: LAN_SERVICE_TYPE, type: 'PTR', data: `bad\u001b[31mname.${LAN_SERVICE_TYPE}` },
      { name: LAN_SERVICE_TYPE, type: 'PTR', data: `two.labels.${LAN_SERVICE_TYPE}` },
      { name: '_other._tcp.local', type: 'PTR', data: `x._other._tcp.local` },
    ];
    assert.deepEqual(heardFromPacket({ answers: bad }, FROM), []);
  });

  it('drops claims that do not fit: an IP literal as a name, an out-of-range port, odd characters in id and host', () => {
    const instance = `odd.${LAN_SERVICE_TYPE}`;
    const heard = heardFromPacket(
      {
        answers: [
          { name: LAN_SERVICE_TYPE, type: 'PTR', data: instance },
          { name: instance, type: 'SRV', data: { port: 70_000, target: 'odd.local' } },
          { name: instance, type: 'TXT', data: ['fqdn=10.0.0.5', 'id=<script>', 'host=a b', 'novalue', '=x'] },
        ],
      },
      FROM,
    );
    assert.deepEqual(heard, [{ instance, id: null, hostLabel: null, claimedName: null, address: FROM, port: null }]);
  });

  it('ignores oversized names, oversized TXT strings and records past the per-packet bound', () => {
    const instance = `big.${LAN_SERVICE_TYPE}`;
    const long = `${'a'.repeat(300)}.${LAN_SERVICE_TYPE}`;
    const oversizedTxt = { name: instance, type: 'TXT', data: [Buffer.from(`fqdn=${'x'.repeat(300)}.tail0.ts.net`)] };
    assert.deepEqual(heardFromPacket({ answers: [{ name: LAN_SERVICE_TYPE, type: 'PTR', data: long }] }, FROM), []);
    const [heard] = heardFromPacket({ answers: [{ name: LAN_SERVICE_TYPE, type: 'PTR', data: instance }, oversizedTxt] }, FROM);
    assert.equal(heard?.claimedName, null);
    const flood = Array.from({ length: MAX_RECORDS_PER_PACKET + 10 }, (_, i) => ({ name: LAN_SERVICE_TYPE, type: 'PTR', data: `h${i}.${LAN_SERVICE_TYPE}` }));
    assert.equal(heardFromPacket({ answers: flood }, FROM).length, MAX_RECORDS_PER_PACKET);
  });

  it('lists one instance once however many PTRs repeat it', () => {
    const [ptr] = announcementRecords(HUB_B);
    assert.equal(heardFromPacket({ answers: [ptr, ptr, ptr] }, FROM).length, 1);
  });

  it('refuses a packet whose sender address is not an IP address', () => {
    assert.deepEqual(heardFromPacket({ answers: announcementRecords(HUB_B) }, 'not-an-address'), []);
  });
});

describe('which queries a Hub answers', () => {
  it('answers a query for the Hub service type or its own instance, and nothing else', () => {
    const own = instanceName(HUB_B);
    assert.equal(queryAsksForHubs({ questions: [{ name: '_CIHUB._tcp.local', type: 'PTR' }] }, own), true);
    assert.equal(queryAsksForHubs({ questions: [{ name: own, type: 'SRV' }] }, own), true);
    assert.equal(queryAsksForHubs({ questions: [{ name: '_http._tcp.local', type: 'PTR' }] }, own), false);
    assert.equal(queryAsksForHubs({ questions: 'x' }, own), false);
    assert.equal(queryAsksForHubs(null, own), false);
  });
});
