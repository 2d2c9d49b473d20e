/**
 * A port on 127.0.0.1 that drops SYNs, as a firewall that drops rather than refuses does, or a
 * tailnet machine that is switched off: a listener in another process that never accepts, with
 * its accept queue filled, after which the kernel drops every further SYN.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

const NEVER_ACCEPTS = `
  const net = require('node:net');
  const server = net.createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
    console.log(server.address().port);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
  });`;

export interface SynDroppingPort {
  readonly port: number;
  close(): void;
}

export async function synDroppingPort(): Promise<SynDroppingPort> {
  const listener = spawn(process.execPath, ['-e', NEVER_ACCEPTS], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(listener.stdout!, 'data')) as [Buffer];
  const port = Number(line.toString().trim());
  const fillers: Socket[] = [];
  for (let i = 0; i < 8; i += 1) fillers.push(connect(port, '127.0.0.1').on('error', () => {}));
  await new Promise((resolve) => setTimeout(resolve, 200)); // the handshakes the queue takes complete at once
  return {
    port,
    close() {
      for (const s of fillers) s.destroy();
      listener.kill('SIGKILL');
    },
  };
}
