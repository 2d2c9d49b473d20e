import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { fromThisMachine, type SocketEnds } from './same-machine.js';

interface Row {
  readonly name: string;
  readonly socket: SocketEnds;
  readonly headers?: IncomingHttpHeaders;
  readonly expected: boolean;
}

const rows: readonly Row[] = [
  { name: 'IPv4 loopback', socket: { remoteAddress: '127.0.0.1', localAddress: '127.0.0.1' }, expected: true },
  { name: 'IPv6 loopback', socket: { remoteAddress: '::1', localAddress: '::1' }, expected: true },
  { name: 'IPv4-mapped loopback on a dual-stack socket', socket: { remoteAddress: '::ffff:127.0.0.1', localAddress: '::ffff:127.0.0.1' }, expected: true },
  { name: 'the CLI at the one address the Hub is bound to', socket: { remoteAddress: '100.101.1.2', localAddress: '100.101.1.2' }, expected: true },
  { name: 'the same address, one end IPv4-mapped', socket: { remoteAddress: '::ffff:192.168.1.5', localAddress: '192.168.1.5' }, expected: true },
  { name: 'another tailnet device', socket: { remoteAddress: '100.101.1.9', localAddress: '100.101.1.2' }, expected: false },
  { name: 'a container on the Docker bridge', socket: { remoteAddress: '172.17.0.3', localAddress: '172.17.0.2' }, expected: false },
  { name: 'a socket already closed (no remote address)', socket: { localAddress: '127.0.0.1' }, expected: false },
  {
    name: 'tailscale serve forwarding a tailnet caller over loopback',
    socket: { remoteAddress: '127.0.0.1', localAddress: '127.0.0.1' },
    headers: { 'x-forwarded-for': '100.101.1.9' },
    expected: false,
  },
  {
    name: 'a proxy on loopback that writes Forwarded',
    socket: { remoteAddress: '127.0.0.1', localAddress: '127.0.0.1' },
    headers: { forwarded: 'for=127.0.0.1' },
    expected: false,
  },
  { name: 'a tunnel on loopback (cf-ray)', socket: { remoteAddress: '127.0.0.1', localAddress: '127.0.0.1' }, headers: { 'cf-ray': 'x' }, expected: false },
];

describe('fromThisMachine', () => {
  for (const row of rows) {
    it(`${row.expected ? 'takes' : 'refuses'} ${row.name}`, () => assert.equal(fromThisMachine(row.socket, row.headers ?? {}), row.expected));
  }
});
