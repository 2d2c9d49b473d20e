/**
 * Preloaded into a Hub process (NODE_OPTIONS=--import) by the clock-skew chaos test: shifts
 * Date.now by the milliseconds written in the file CIHUB_TEST_CLOCK_SKEW_FILE names, re-read
 * every CLOCK_SKEW_REREAD_MS, so a test can skew a running Hub's wall clock and put it back
 * without restarting it. The Hub's clock (src/util/clock.ts) reads Date.now, so what it signs
 * and what it accepts move with it. Test-only: nothing in src/ knows this file or the variable.
 */
import { readFileSync } from 'node:fs';

const CLOCK_SKEW_REREAD_MS = 50;
const file = process.env.CIHUB_TEST_CLOCK_SKEW_FILE;

if (file) {
  const realNow = Date.now.bind(Date);
  let skewMs = 0;
  const reread = () => {
    try {
      const value = Number(readFileSync(file, 'utf8').trim());
      skewMs = Number.isFinite(value) ? value : 0;
    } catch {
      skewMs = 0;
    }
  };
  reread();
  setInterval(reread, CLOCK_SKEW_REREAD_MS).unref();
  Date.now = () => realNow() + skewMs;
}
