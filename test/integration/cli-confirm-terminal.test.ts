/**
 * On a terminal, a command that changes something asks [y/N] and does only what the answer
 * says: no is the default, and nothing changes until the operator types y. The other tests run
 * the CLI with no terminal, where the prompt is refused outright, so this one gives it a
 * pseudo-terminal through util-linux `script` (part of every Debian-family base system) and
 * answers only once the question has been printed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { CIHUB_BIN, startHubProcess, type HubProcess } from '../helpers/hub-process.js';

interface Prompted {
  readonly code: number | null;
  /** Everything the terminal showed: the question, the echoed answer and the result. */
  readonly screen: string;
}

/** Runs `cihub <args>` on a pseudo-terminal, types `answer` once [y/N] shows, and waits for it to exit. */
function onTerminal(hub: HubProcess, args: readonly string[], answer: string): Promise<Prompted> {
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const command = [process.execPath, CIHUB_BIN, '--data-dir', hub.dataDir, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', HOME: hub.dataDir, TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let answered = false;
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      if (!answered && screen.includes('[y/N]')) {
        answered = true;
        child.stdin.write(`${answer}\r`);
      }
    });
    child.stderr.on('data', (d: Buffer) => (screen += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      child.stdin.end();
      resolve({ code, screen });
    });
  });
}

async function poolEnabled(hub: HubProcess): Promise<unknown> {
  const res = await hub.api<{ poolEnabled: unknown }>('GET', '/api/inference/pool/settings');
  assert.equal(res.status, 200);
  return res.json.poolEnabled;
}

describe('a change asked for on a terminal', () => {
  let hub: HubProcess;
  before(async () => {
    hub = await startHubProcess();
  });
  after(async () => {
    await hub?.stop();
  });

  it('asks [y/N], and a plain Enter (the default, no) changes nothing and exits 1', async () => {
    const run = await onTerminal(hub, ['pool', 'disable'], '');
    assert.match(run.screen, /\[y\/N\]/);
    assert.match(run.screen, /Cancelled; nothing was changed\./);
    assert.equal(run.code, 1, run.screen);
    assert.equal(await poolEnabled(hub), true);
  });

  it('asks [y/N], and n changes nothing and exits 1', async () => {
    const run = await onTerminal(hub, ['pool', 'disable'], 'n');
    assert.match(run.screen, /Cancelled; nothing was changed\./);
    assert.equal(run.code, 1, run.screen);
    assert.equal(await poolEnabled(hub), true);
  });

  it('asks [y/N], and y makes the change and exits 0', async () => {
    const run = await onTerminal(hub, ['pool', 'disable'], 'y');
    assert.match(run.screen, /\[y\/N\]/);
    assert.equal(run.code, 0, run.screen);
    assert.equal(await poolEnabled(hub), false);
  });
});
