import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino, { type Logger } from 'pino';
import { createLogger } from '../util/logger.js';
import { ManualClock } from '../util/clock.js';
import { announcementRecords, LAN_SERVICE_TYPE } from './lan-announcement.js';
import { LAN_ANSWER_MIN_INTERVAL_MS, LanPresence, type MdnsTransport } from './lan-presence.js';

/** A transport that records what the Hub sends and lets the test deliver packets. */
class FakeTransport implements MdnsTransport {
  queries: string[] = [];
  answers: unknown[][] = [];
  destroyed = false;
  onQueryQueryHandler: ((p: unknown, from: string) => void) | null = null;
  responseHandler: ((p: unknown, from: string) => void) | null = null;
  errorHandler: ((err: Error) => void) | null = null;
  /** Packets delivered as responses whenever the Hub asks. */
  replies: Array<{ packet: unknown; from: string }> = [];
  onQuery(h: (p: unknown, from: string) => void) {
    this.onQueryQueryHandler = h;
  }
  onResponse(h: (p: unknown, from: string) => void) {
    this.responseHandler = h;
  }
  onError(h: (err: Error) => void) {
    this.errorHandler = h;
  }
  query(name: string) {
    this.queries.push(name);
    for (const r of this.replies) this.responseHandler?.(r.packet, r.from);
  }
  respond(answers: unknown[]) {
    this.answers.push(answers);
  }
  destroy() {
    this.destroyed = true;
  }
}

function presence(opts: { enabled: () => boolean; clock?: ManualClock; logger?: Logger }) {
  const opened: FakeTransport[] = [];
  const lan = new LanPresence({
    enabled: opts.enabled,
    nodeFqdn: async () => 'self.tail0.ts.net',
    hostName: 'self-box',
    port: () => 5002,
    open: () => {
      const t = new FakeTransport();
      opened.push(t);
      return t;
    },
    clock: opts.clock ?? new ManualClock(),
    logger: opts.logger ?? pino({ level: 'silent' }),
  });
  return { lan, opened };
}

describe('LAN presence (mDNS)', () => {
  it('opens no socket at all while the setting is off, on a switch sync or a scan', async () => {
    const { lan, opened } = presence({ enabled: () => false });
    await lan.sync();
    assert.deepEqual(await lan.browse(0), { state: 'off' });
    assert.equal(opened.length, 0);
    assert.equal(lan.open, false);
  });

  it('opens once when switched on, announces itself, and closes when switched off', async () => {
    let on = true;
    const { lan, opened } = presence({ enabled: () => on });
    await lan.sync();
    await lan.sync();
    assert.equal(opened.length, 1);
    const records = opened[0]!.answers[0] as ReturnType<typeof announcementRecords>;
    assert.equal(records[0]!.name, LAN_SERVICE_TYPE);
    assert.deepEqual(records[2]!.data, [`id=${lan.id}`, 'host=self-box', 'fqdn=self.tail0.ts.net']);
    on = false;
    await lan.sync();
    assert.equal(opened[0]!.destroyed, true);
    assert.equal(lan.open, false);
  });

  it("logs the mDNS service type under a key of its own, leaving the Hub's service field alone", async () => {
    const lines: string[] = [];
    const { lan } = presence({ enabled: () => true, logger: createLogger('info', { write: (line: string) => void lines.push(line) }) });
    await lan.sync();
    const line = lines.find((l) => l.includes('LAN discovery (mDNS) on'));
    assert.ok(line !== undefined, lines.join(''));
    assert.equal(line.match(/"service":/g)?.length, 1, `one service key: ${line}`);
    const fields = JSON.parse(line) as Record<string, unknown>;
    assert.equal(fields.service, 'cihub');
    assert.equal(fields.mdnsService, LAN_SERVICE_TYPE);
    lan.close();
  });

  it('answers queries for Hubs, at most once per LAN_ANSWER_MIN_INTERVAL_MS, and ignores other queries', async () => {
    const clock = new ManualClock();
    const { lan, opened } = presence({ enabled: () => true, clock });
    await lan.sync();
    const t = opened[0]!;
    const ask = (name: string) => t.onQueryQueryHandler!({ questions: [{ name, type: 'PTR' }] }, '192.168.1.9');
    clock.advance(LAN_ANSWER_MIN_INTERVAL_MS);
    ask(LAN_SERVICE_TYPE);
    ask(LAN_SERVICE_TYPE);
    ask('_http._tcp.local');
    assert.equal(t.answers.length, 2, 'the start-up announcement and one answer');
    clock.advance(LAN_ANSWER_MIN_INTERVAL_MS);
    ask(LAN_SERVICE_TYPE);
    assert.equal(t.answers.length, 3);
  });

  it('answers the next query after the wall clock is set back, rather than staying silent until the clock catches up', async () => {
    const clock = new ManualClock();
    const { lan, opened } = presence({ enabled: () => true, clock });
    await lan.sync();
    const t = opened[0]!;
    clock.advance(-3_600_000);
    t.onQueryQueryHandler!({ questions: [{ name: LAN_SERVICE_TYPE, type: 'PTR' }] }, '192.168.1.9');
    assert.equal(t.answers.length, 2, 'the start-up announcement and the answer');
  });

  it('a scan asks for Hubs and returns what answered, its own answer included for the caller to drop', async () => {
    const { lan, opened } = presence({ enabled: () => true });
    await lan.sync();
    const other = announcementRecords({ id: 'cafe0001', hostLabel: 'studio', nodeFqdn: 'studio.tail0.ts.net', port: 5002 });
    opened[0]!.replies.push({ packet: { answers: other }, from: '192.168.1.42' }, { packet: 'garbage', from: '192.168.1.66' });
    const scan = await lan.browse(0);
    assert.equal(scan.state, 'ok');
    assert.deepEqual(opened[0]!.queries, [LAN_SERVICE_TYPE, LAN_SERVICE_TYPE]);
    assert.ok(scan.state === 'ok' && scan.heard.some((h) => h.claimedName === 'studio.tail0.ts.net' && h.address === '192.168.1.42'));
  });

  it('a socket error closes the socket and the scan reports it, without throwing', async () => {
    let fail = false;
    const lan = new LanPresence({
      enabled: () => true,
      nodeFqdn: async () => null,
      hostName: 'x',
      port: () => 5002,
      open: () => {
        if (fail) throw Object.assign(new Error('bind EADDRINUSE 0.0.0.0:5353'), { code: 'EADDRINUSE' });
        return new FakeTransport();
      },
      clock: new ManualClock(),
      logger: pino({ level: 'silent' }),
    });
    await lan.sync();
    fail = true;
    lan.close();
    assert.deepEqual(await lan.browse(0), { state: 'failed', detail: 'bind EADDRINUSE 0.0.0.0:5353' });
  });

  it('a packet that breaks a reader is dropped, not thrown into the socket', async () => {
    const { lan, opened } = presence({ enabled: () => true });
    await lan.sync();
    const hostile = {
      get answers(): unknown[] {
        throw new Error('boom');
      },
    };
    opened[0]!.replies.push({ packet: hostile, from: '192.168.1.42' });
    assert.deepEqual(await lan.browse(0), { state: 'ok', heard: [] });
    assert.doesNotThrow(() =>
      opened[0]!.onQueryQueryHandler!(
        {
          get questions(): unknown[] {
            throw new Error('boom');
          },
        },
        '192.168.1.42',
      ),
    );
  });

  it('after shutdown, neither a switch nor a scan opens a socket again', async () => {
    const { lan, opened } = presence({ enabled: () => true });
    await lan.sync();
    lan.stop();
    await lan.sync();
    assert.deepEqual(await lan.browse(0), { state: 'off' });
    assert.equal(opened.length, 1);
    assert.equal(opened[0]!.destroyed, true);
  });
});
