/**
 * A second Hub's LAN announcement, answered by an mDNS responder in the test process on
 * 127.0.0.1 (where a Hub under test announces and listens), so a Hub's LAN discovery hears it.
 */
import { randomBytes } from 'node:crypto';
import makeMdns from 'multicast-dns';
import { announcementRecords, LAN_SERVICE_TYPE } from '../../src/discovery/lan-announcement.js';

export interface LanResponder {
  /** The announced Hub's host label (`studio-<random hex>`), unique per run. */
  readonly hostLabel: string;
  close(): void;
}

/** Answers every query for the Hub service with one Hub's records; resolves once listening. */
export async function startLanResponder(): Promise<LanResponder> {
  const id = randomBytes(4).toString('hex');
  const hostLabel = `studio-${id}`;
  const responder = makeMdns({ interface: '127.0.0.1', bind: '0.0.0.0' });
  const records = announcementRecords({ id, hostLabel, nodeFqdn: `${hostLabel}.tail0.ts.net`, port: 5002 });
  responder.on('query', (q) => {
    if (q.questions.some((x) => x.name === LAN_SERVICE_TYPE)) responder.respond({ answers: records });
  });
  await new Promise<void>((resolve) => responder.once('ready', () => resolve()));
  return { hostLabel, close: () => responder.destroy() };
}
