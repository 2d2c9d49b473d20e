import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_FILE, logDir } from '../logs/log-file.js';
import { createHubLogger, REDACTED } from './logger.js';

const root = mkdtempSync(join(tmpdir(), 'cihub-logger-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('the Hub logger', () => {
  it('redacts keys, tokens, PINs and authorization headers itself, in the file it writes', () => {
    const dir = mkdtempSync(join(root, 'd-'));
    const { logger, file } = createHubLogger('info', dir, { stdout: false });
    const secrets = {
      token: 'tok-SECRET-1',
      pin: '493817',
      apiKey: 'ak-SECRET-2',
      operatorKey: 'op-SECRET-3',
      privateKey: 'pk-SECRET-4',
      key: 'k-SECRET-5',
    };
    logger.warn(
      {
        ...secrets,
        peer: 'hub-b.tail0.ts.net',
        body: { fromNodeFqdn: 'hub-a.tail0.ts.net', token: 'tok-SECRET-6', pin: '112233' },
        headers: { authorization: 'Bearer SECRET-7', 'x-hub-pool-signature': 'v1.ed25519.SECRET-8', 'content-type': 'application/json' },
        req: { headers: { authorization: 'Bearer SECRET-9' } },
      },
      'a caller logged more than it should',
    );
    logger.debug({ token: 'tok-debug' }, 'below the level');
    file.close();
    const text = readFileSync(join(logDir(dir), LOG_FILE), 'utf8');
    assert.doesNotMatch(text, /SECRET|493817|112233/, text);
    assert.doesNotMatch(text, /tok-debug/);
    const entry = JSON.parse(text.trim()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a test reads any JSON answer
    for (const k of Object.keys(secrets)) assert.equal(entry[k], REDACTED, k);
    assert.equal(entry.body.token, REDACTED);
    assert.equal(entry.body.pin, REDACTED);
    assert.equal(entry.body.fromNodeFqdn, 'hub-a.tail0.ts.net', 'what is not a secret stays');
    assert.equal(entry.headers.authorization, REDACTED);
    assert.equal(entry.headers['x-hub-pool-signature'], REDACTED);
    assert.equal(entry.headers['content-type'], 'application/json');
    assert.equal(entry.req.headers.authorization, REDACTED);
    assert.equal(entry.peer, 'hub-b.tail0.ts.net');
    assert.equal(entry.msg, 'a caller logged more than it should');
  });

  it('writes debug lines to the file when the level asks for them', () => {
    const dir = mkdtempSync(join(root, 'd-'));
    const { logger, file } = createHubLogger('debug', dir, { stdout: false });
    logger.debug({ n: 1 }, 'a debug line');
    file.close();
    assert.match(readFileSync(join(logDir(dir), LOG_FILE), 'utf8'), /a debug line/);
  });
});
