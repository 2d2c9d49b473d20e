import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareVersions, versionSkew, versionSkewWarning } from './version-skew.js';

const RESTART = 'restart the Hub with `cihub serve` (or its service manager) so the two agree';
const KEEP_THE_HUB =
  'run the cihub the Hub was started from (another install may come first on PATH), or upgrade this one, so the two agree; restarting the Hub with this cihub would downgrade it';
const SAME_RELEASE = 'run cihub and the Hub from the same release so the two agree';

describe('versionSkew: what the CLI says about the Hub it talks to, by which is the newer', () => {
  const rows: { name: string; cli: string; hub: string | null; skew: ReturnType<typeof versionSkew> }[] = [
    { name: 'the same version: nothing', cli: '0.2.0', hub: '0.2.0', skew: null },
    {
      name: 'an older Hub: restart it',
      cli: '0.2.0',
      hub: '0.1.0',
      skew: { found: 'this cihub is 0.2.0 but the running Hub is 0.1.0', fix: RESTART },
    },
    {
      name: 'an older Hub by a number, not by its text (0.9.0 before 0.10.0)',
      cli: '0.10.0',
      hub: '0.9.0',
      skew: { found: 'this cihub is 0.10.0 but the running Hub is 0.9.0', fix: RESTART },
    },
    {
      name: 'a newer Hub: run its cihub or upgrade this one, since a restart with this one would downgrade it',
      cli: '0.1.0',
      hub: '0.2.0',
      skew: { found: 'this cihub is 0.1.0, older than the running Hub (0.2.0)', fix: KEEP_THE_HUB },
    },
    {
      name: 'a Hub on the prerelease of this release is the older',
      cli: '1.0.0',
      hub: '1.0.0-rc.1',
      skew: { found: 'this cihub is 1.0.0 but the running Hub is 1.0.0-rc.1', fix: RESTART },
    },
    {
      name: "a Hub on the release of this cihub's prerelease is the newer",
      cli: '1.0.0-rc.2',
      hub: '1.0.0',
      skew: { found: 'this cihub is 1.0.0-rc.2, older than the running Hub (1.0.0)', fix: KEEP_THE_HUB },
    },
    {
      name: 'a later prerelease of the same release is the newer',
      cli: '1.0.0-rc.2',
      hub: '1.0.0-rc.10',
      skew: { found: 'this cihub is 1.0.0-rc.2, older than the running Hub (1.0.0-rc.10)', fix: KEEP_THE_HUB },
    },
    {
      name: 'a version that is not semver: they differ, with no direction to restart in',
      cli: '0.2.0',
      hub: 'nightly',
      skew: { found: 'this cihub is 0.2.0 but the running Hub is nightly, and which is newer cannot be told', fix: SAME_RELEASE },
    },
    {
      name: 'no version in hub.json: a Hub from before the field, so the older',
      cli: '0.2.0',
      hub: null,
      skew: { found: 'this cihub is 0.2.0 but the running Hub is an older version (its hub.json records none)', fix: RESTART },
    },
  ];
  for (const r of rows) it(r.name, () => assert.deepEqual(versionSkew(r.cli, r.hub), r.skew));
});

describe('compareVersions', () => {
  const rows: [string, string, number | null][] = [
    ['1.2.3', '1.2.3', 0],
    ['1.2.3', '1.2.4', -1],
    ['2.0.0', '1.99.99', 1],
    ['1.0.0-alpha', '1.0.0', -1],
    ['1.0.0-alpha', '1.0.0-alpha.1', -1],
    ['1.0.0-alpha.1', '1.0.0-alpha.beta', -1],
    ['1.0.0-beta.11', '1.0.0-beta.2', 1],
    ['1.0.0+build.1', '1.0.0+build.2', 0],
    ['1.0', '1.0.0', null],
    ['v1.0.0', '1.0.0', null],
  ];
  for (const [a, b, order] of rows) it(`${a} against ${b}: ${order}`, () => assert.equal(compareVersions(a, b), order));
});

describe('versionSkewWarning', () => {
  it('is null when the CLI and the Hub run the same version', () => {
    assert.equal(versionSkewWarning('0.2.0', '0.2.0'), null);
  });

  it('is one line: what was found, what to do, and what happens until then', () => {
    assert.equal(
      versionSkewWarning('0.2.0', '0.1.0'),
      'Warning: this cihub is 0.2.0 but the running Hub is 0.1.0; restart the Hub with `cihub serve` (or its service manager) so the two agree. Until then, commands can fail or show less.',
    );
  });

  it('keeps a recorded version that holds a newline on the one line', () => {
    assert.equal((versionSkewWarning('0.2.0', '0.1.0\nWarning: fine') ?? '').split('\n').length, 1);
  });
});
