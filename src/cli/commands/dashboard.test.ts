import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { browserOpener } from './dashboard.js';

describe('browserOpener: a browser is started only where one can be shown', () => {
  const cases: readonly [NodeJS.Platform, Record<string, string>, string | null][] = [
    ['darwin', {}, 'open'],
    ['linux', { DISPLAY: ':0' }, 'xdg-open'],
    ['linux', { WAYLAND_DISPLAY: 'wayland-0' }, 'xdg-open'],
    ['linux', {}, null],
    ['linux', { DISPLAY: '' }, null],
    ['win32', { DISPLAY: ':0' }, null],
  ];
  for (const [platform, env, expected] of cases) {
    it(`${platform} ${JSON.stringify(env)} -> ${expected}`, () => assert.equal(browserOpener(platform, env), expected));
  }
});
