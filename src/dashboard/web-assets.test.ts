import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadWebApp } from './web-assets.js';
import { scratchDir } from '../../test/helpers/scratch-dir.js';

describe('loadWebApp', () => {
  it('is null when the build did not run (no index.html), so / answers HUB_ERR_DASHBOARD_NOT_BUILT', () => {
    assert.equal(loadWebApp(scratchDir('cihub-web-')), null);
  });

  it('holds index.html and the assets it knows a type for, by file name', () => {
    const dir = scratchDir('cihub-web-');
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
    writeFileSync(join(dir, 'assets', 'index-abc123.css'), 'body{}');
    writeFileSync(join(dir, 'assets', 'notes.txt'), 'not served');
    const app = loadWebApp(dir);
    assert.ok(app);
    assert.equal(app.index.toString(), '<!doctype html>');
    assert.deepEqual([...app.assets.keys()].sort(), ['index-abc123.css', 'index-abc123.js']);
    assert.equal(app.assets.get('index-abc123.js')?.contentType, 'text/javascript; charset=utf-8');
  });
});
