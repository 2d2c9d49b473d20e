/**
 * The CLI and the Hub it talks to running different versions. An upgrade replaces the installed
 * package at once, but the Hub keeps running the code it started with until it is restarted, so
 * for that while the new CLI reads answers an older Hub wrote (a status without contextCaps, say).
 * The other way round happens too: with two installs, an older cihub earlier on PATH talks to a
 * Hub started from the newer one, and restarting the Hub with that cihub would downgrade it. The
 * Hub records its version in hub.json; the CLI compares it with its own and says so on stderr,
 * where it cannot spoil a --json document on stdout, and `cihub pool doctor` reports it as H2.
 */
import { oneLine } from './output.js';

/** A version's precedence parts: major.minor.patch, and the prerelease identifiers (none for a release). */
interface Precedence {
  readonly core: readonly [number, number, number];
  readonly prerelease: readonly string[];
}

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const NUMERIC = /^\d+$/;

function precedence(version: string): Precedence | null {
  const m = SEMVER.exec(version);
  if (m === null) return null;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], prerelease: m[4] === undefined ? [] : m[4].split('.') };
}

/** Semver's order of two prerelease identifiers: numbers numerically and below words, words by ASCII. */
function compareIdentifiers(a: string, b: string): number {
  const an = NUMERIC.test(a);
  const bn = NUMERIC.test(b);
  if (an && bn) return Math.sign(Number(a) - Number(b));
  if (an !== bn) return an ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Semver precedence of `a` against `b`: negative when `a` is older, positive when newer, 0 when
 * they rank alike (build metadata is not ranked); null when either is not a semver version. A
 * prerelease ranks below its release (1.0.0-rc.1 < 1.0.0).
 */
export function compareVersions(a: string, b: string): number | null {
  const pa = precedence(a);
  const pb = precedence(b);
  if (pa === null || pb === null) return null;
  for (let i = 0; i < 3; i++) if (pa.core[i] !== pb.core[i]) return Math.sign(pa.core[i]! - pb.core[i]!);
  if (pa.prerelease.length === 0 || pb.prerelease.length === 0) return Math.sign(pb.prerelease.length - pa.prerelease.length);
  for (let i = 0; i < Math.min(pa.prerelease.length, pb.prerelease.length); i++) {
    const order = compareIdentifiers(pa.prerelease[i]!, pb.prerelease[i]!);
    if (order !== 0) return order;
  }
  return Math.sign(pa.prerelease.length - pb.prerelease.length);
}

/** The Hub is the older: it still runs the release it was started with, so a restart brings it up to this cihub. */
const RESTART_THE_HUB = 'restart the Hub with `cihub serve` (or its service manager) so the two agree';

/** Two versions that differ, named, and what to do about it, which depends on which is the newer. */
export interface VersionSkew {
  readonly found: string;
  readonly fix: string;
}

/**
 * How a CLI at `cliVersion` and a Hub that recorded `hubVersion` differ (null: its hub.json has
 * none, so it predates the field and is older than this CLI); null when the two agree.
 */
export function versionSkew(cliVersion: string, hubVersion: string | null): VersionSkew | null {
  if (hubVersion === cliVersion) return null;
  if (hubVersion === null) {
    return {
      found: `this cihub is ${cliVersion} but the running Hub is an older version (its hub.json records none)`,
      fix: RESTART_THE_HUB,
    };
  }
  const hub = oneLine(hubVersion);
  const order = compareVersions(hubVersion, cliVersion);
  if (order !== null && order < 0) return { found: `this cihub is ${cliVersion} but the running Hub is ${hub}`, fix: RESTART_THE_HUB };
  if (order !== null && order > 0) {
    return {
      found: `this cihub is ${cliVersion}, older than the running Hub (${hub})`,
      fix: 'run the cihub the Hub was started from (another install may come first on PATH), or upgrade this one, so the two agree; restarting the Hub with this cihub would downgrade it',
    };
  }
  return {
    found: `this cihub is ${cliVersion} but the running Hub is ${hub}, and which is newer cannot be told`,
    fix: 'run cihub and the Hub from the same release so the two agree',
  };
}

/** The one warning line for stderr; null when the two agree. */
export function versionSkewWarning(cliVersion: string, hubVersion: string | null): string | null {
  const skew = versionSkew(cliVersion, hubVersion);
  if (skew === null) return null;
  return `Warning: ${skew.found}; ${skew.fix}. Until then, commands can fail or show less.`;
}
