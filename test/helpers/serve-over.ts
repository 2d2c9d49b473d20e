/**
 * `cihub serve` run over a data dir as an operator would run it by hand, with no engine and no
 * Tailscale on PATH: for the tests of what a start refuses or takes over.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CIHUB_BIN, eventually, pathWithoutTailscale } from './hub-process.js';
import { writesIntoScratch } from './scratch-dir.js';

/**
 * `fileSizeLimitBlocks` runs it under `ulimit -f` (in the shell's blocks, 512 bytes or 1 KiB): a
 * write past that size fails (EFBIG), a disk refusing writes as a full one does, for any account.
 */
export function spawnServe(dataDir: string, port = 0, opts: { fileSizeLimitBlocks?: number } = {}) {
  const serve = [CIHUB_BIN, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir];
  const [command, args] =
    opts.fileSizeLimitBlocks === undefined
      ? [process.execPath, serve]
      : ['/bin/sh', ['-c', `ulimit -f ${opts.fileSizeLimitBlocks} && exec "$@"`, 'sh', process.execPath, ...serve]];
  const child = spawn(command, args, {
    env: { PATH: pathWithoutTailscale(), HOME: dataDir, OLLAMA_URL: '', VLLM_URL: '', LEMONADE_URL: '', OMLX_URL: '', LLAMACPP_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  writesIntoScratch(child);
  return child;
}

/**
 * Runs `cihub serve` over `dataDir` until it exits or writes its own pid into hub.json (it went
 * on to listen); a Hub that listened is then stopped the way an operator would, with SIGTERM.
 */
export async function serveUntilSettled(dataDir: string): Promise<{ code: number | null; output: string; listened: boolean }> {
  const child = spawnServe(dataDir);
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const closed = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
  let exited = false;
  void closed.then(() => (exited = true));
  const ownPid = () => {
    try {
      return (JSON.parse(readFileSync(join(dataDir, 'hub.json'), 'utf8')) as { pid?: number }).pid === child.pid;
    } catch {
      return false;
    }
  };
  const settled = await eventually(() => (exited ? 'exited' : ownPid() ? 'listened' : null), 'serve to exit or listen');
  if (settled === 'listened') child.kill('SIGTERM');
  return { code: await closed, output, listened: settled === 'listened' };
}
