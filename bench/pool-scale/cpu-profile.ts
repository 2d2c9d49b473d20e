/**
 * Loaded into the Hub with NODE_OPTIONS=--import=<this file> by `bench:pool-scale --profile`
 * (Node refuses --cpu-prof in NODE_OPTIONS): profiles the whole process with the inspector and
 * writes CPU_PROFILE_DIR/hub-<pid>.cpuprofile when it exits. The in-process inspector session
 * answers synchronously, which is what lets the 'exit' handler stop and write the profile.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  process.on('exit', () => {
    session.post('Profiler.stop', (err, res) => {
      if (err) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `hub-${process.pid}.cpuprofile`), JSON.stringify(res.profile));
    });
  });
}
