/**
 * The CLI and the Hub it talks to running different versions. An upgrade replaces the installed
 * package at once, but the Hub keeps running the code it started with until it is restarted, so
 * for that while the new CLI reads answers an older Hub wrote (a status without contextCaps, say).
 * The Hub records its version in hub.json; the CLI compares it with its own and says so on
 * stderr, where it cannot spoil a --json document on stdout.
 */
import { oneLine } from './output.js';

/**
 * The warning line for a CLI at `cliVersion` talking to a Hub that recorded `hubVersion` (null:
 * its hub.json has none, so it predates the field and is older than this CLI); null when the
 * two agree.
 */
export function versionSkewWarning(cliVersion: string, hubVersion: string | null): string | null {
  if (hubVersion === cliVersion) return null;
  const hub = hubVersion === null ? 'an older version (its hub.json records none)' : oneLine(hubVersion);
  return `Warning: this cihub is ${cliVersion} but the running Hub is ${hub}; restart the Hub with \`cihub serve\` (or its service manager) so the two agree, as until then commands can fail or show less.`;
}
