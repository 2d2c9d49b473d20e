// Loaded into every process of a test run (scripts/run-tests.mjs puts it in NODE_OPTIONS), where
// it acts only in a test file's own process. Shortly before the runner's bound for a file runs
// out, it writes down what the process is still waiting on (its active resources as Node names
// them, and libuv's active handles), and takes the note back if the file then ends by itself. A
// file the runner ends at its bound leaves the note, printed after the run, so a hang that cannot
// be reproduced at will (stop 59's request-outside-tailnet) leaves evidence. A file stuck outside
// JavaScript leaves none, which says that too. No signal handler: the runner's SIGTERM must keep
// ending a process whatever it is doing.
import { rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const dir = process.env.CIHUB_TEST_TIMEOUT_REPORTS;
const atMs = Number(process.env.CIHUB_TEST_TIMEOUT_REPORT_AT_MS);
const file = process.argv[1] ?? '';
if (dir && Number.isFinite(atMs) && file.endsWith('.test.js')) {
  const note = join(dir, `${relative(process.cwd(), file).replaceAll('/', '__')}.json`);
  setTimeout(() => {
    const activeHandles = process.report
      .getReport()
      .libuv.filter((h) => h.is_active)
      .map((h) => h.type);
    writeFileSync(note, JSON.stringify({ file, activeResources: process.getActiveResourcesInfo(), activeHandles }));
    process.once('exit', () => rmSync(note, { force: true }));
  }, atMs).unref();
}
