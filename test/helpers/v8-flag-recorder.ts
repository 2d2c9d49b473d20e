/**
 * Loaded into a Hub process with `--import` (StartHubOptions.nodeArgs): every flag the Hub hands
 * to V8 at run time is appended, one a line, to the file named by V8_FLAG_RECORD, and then set as
 * usual. V8 keeps no readable record of a flag set this way, so a test of what the Hub asked V8
 * for reads this file. Test code only.
 */
import { appendFileSync } from 'node:fs';
import v8 from 'node:v8';

const file = process.env.V8_FLAG_RECORD;
if (file) {
  const set = v8.setFlagsFromString.bind(v8);
  v8.setFlagsFromString = (flags: string) => {
    appendFileSync(file, `${flags}\n`);
    set(flags);
  };
}
