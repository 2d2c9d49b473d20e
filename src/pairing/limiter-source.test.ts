import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { limiterSourceIp } from './limiter-source.js';

describe('limiterSourceIp: which address the PIN limiter keys on', () => {
  const rows: readonly { name: string; ip: string; socket: string; headers: Record<string, string>; key: string | null }[] = [
    { name: 'a caller with no proxy headers: its address', ip: '100.64.0.5', socket: '100.64.0.5', headers: {}, key: '100.64.0.5' },
    {
      name: 'a stranger reaching the socket itself with cf-ray added: still its address (issue 9, defect 17)',
      ip: '100.64.0.5',
      socket: '100.64.0.5',
      headers: { 'cf-ray': '8a1b-AMS', 'cf-connecting-ip': '203.0.113.9' },
      key: '100.64.0.5',
    },
    {
      name: 'a stranger with X-Forwarded-For added: still its address',
      ip: '192.168.1.20',
      socket: '192.168.1.20',
      headers: { 'x-forwarded-for': '198.51.100.1' },
      key: '192.168.1.20',
    },
    {
      name: 'a tunnel on this machine (loopback socket, cf-ray, no client named): the name alone',
      ip: '127.0.0.1',
      socket: '127.0.0.1',
      headers: { 'cf-ray': '8a1b-AMS', 'cf-connecting-ip': '203.0.113.9' },
      key: null,
    },
    { name: 'a local app with no proxy headers: its loopback address', ip: '127.0.0.1', socket: '127.0.0.1', headers: {}, key: '127.0.0.1' },
    {
      name: 'a trusted local proxy that named the client (Tailscale Serve): that client',
      ip: '100.64.0.9',
      socket: '127.0.0.1',
      headers: { 'x-forwarded-for': '100.64.0.9', 'x-real-ip': '100.64.0.9' },
      key: '100.64.0.9',
    },
    { name: 'IPv6 loopback counts as this machine', ip: '::1', socket: '::1', headers: { 'cf-ray': 'x' }, key: null },
  ];
  for (const r of rows) it(r.name, () => assert.equal(limiterSourceIp({ ip: r.ip, socketAddress: r.socket, headers: r.headers }, false), r.key));

  it('keys on the address whenever the operator named the proxies (HUB_TRUST_PROXY), tunnel headers or not', () =>
    assert.equal(limiterSourceIp({ ip: '127.0.0.1', socketAddress: '127.0.0.1', headers: { 'cf-ray': 'x' } }, true), '127.0.0.1'));
});
