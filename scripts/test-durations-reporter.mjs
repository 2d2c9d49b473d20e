// A node --test reporter that writes how long each test file took, for scripts/run-tests.mjs to
// start the longest first (see there, which merges it into scripts/test-durations.json). One JSON
// object, path -> seconds, written at the end of the run: each file's top-level tests run one after another in its own process, so their
// durations add up to the file's time less its start.
import { relative } from 'node:path';

export default async function* durations(source) {
  const seconds = {};
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      const file = relative(process.cwd(), event.data.file);
      seconds[file] = (seconds[file] ?? 0) + (event.data.details?.duration_ms ?? 0) / 1000;
    }
  }
  yield JSON.stringify(Object.fromEntries(Object.entries(seconds).map(([file, s]) => [file, Math.round(s * 10) / 10])));
}
