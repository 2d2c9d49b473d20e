import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { versionSkewWarning } from './version-skew.js';

describe('versionSkewWarning', () => {
  it('is null when the CLI and the Hub run the same version', () => {
    assert.equal(versionSkewWarning('0.2.0', '0.2.0'), null);
  });

  it('names both versions and the restart when the Hub runs an older one', () => {
    assert.equal(
      versionSkewWarning('0.2.0', '0.1.0'),
      'Warning: this cihub is 0.2.0 but the running Hub is 0.1.0; restart the Hub with `cihub serve` (or its service manager) so the two agree, as until then commands can fail or show less.',
    );
  });

  it('warns the same way when the Hub is the newer one: the two still disagree', () => {
    assert.match(versionSkewWarning('0.1.0', '0.2.0') ?? '', /^Warning: this cihub is 0\.1\.0 but the running Hub is 0\.2\.0; restart the Hub/);
  });

  it('reads a hub.json without a version as an older Hub, since Hubs record it from this version on', () => {
    assert.match(
      versionSkewWarning('0.2.0', null) ?? '',
      /^Warning: this cihub is 0\.2\.0 but the running Hub is an older version \(its hub\.json records none\); restart/,
    );
  });

  it('keeps a recorded version that holds a newline on the one line', () => {
    assert.equal((versionSkewWarning('0.2.0', '0.1.0\nWarning: fine') ?? '').split('\n').length, 1);
  });
});
