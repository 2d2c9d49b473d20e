// Loaded into every process of a test run (scripts/run-tests.mjs puts it in NODE_OPTIONS), where
// it acts only in a test file's own process. The runner ends a file that outlives its timeout
// with SIGTERM; this then writes down what the process was still waiting on (its active
// resources as Node names them, and libuv's active handles), so a hang that cannot be
// reproduced at will (stop 59's request-outside-tailnet) leaves evidence. A process stuck outside
// JavaScript never runs the handler: no report is evidence of that too.
import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const dir = process.env.CIHUB_TEST_TIMEOUT_REPORTS;
const file = process.argv[1] ?? '';
if (dir && file.endsWith('.test.js')) {
  process.once('SIGTERM', () => {
    const activeHandles = process.report
      .getReport()
      .libuv.filter((h) => h.is_active)
      .map((h) => h.type);
    const evidence = { file, activeResources: process.getActiveResourcesInfo(), activeHandles };
    writeFileSync(join(dir, `${basename(file)}.json`), JSON.stringify(evidence, null, 1));
    process.exit(1);
  });
}
