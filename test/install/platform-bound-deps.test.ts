/**
 * A Hub installs on Linux and macOS, x64 and arm64 (issue 12, item 1). A package whose
 * package.json names an `os` or `cpu` installs on those machines only, so none may be needed at
 * run time: each must be reachable only through optional or development edges. The lockfile is
 * npm's record of exactly that (`dev`, `optional`, `devOptional` on every entry).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/hub-process.js';

interface LockEntry {
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly devOptional?: boolean;
  readonly link?: boolean;
}

/** The lockfile paths of platform-bound packages a production install cannot do without. */
export function hardPlatformBound(packages: Readonly<Record<string, LockEntry>>): string[] {
  return Object.entries(packages)
    .filter(([path, e]) => path !== '' && (e.os !== undefined || e.cpu !== undefined))
    .filter(([, e]) => e.dev !== true && e.optional !== true && e.devOptional !== true)
    .map(([path]) => path);
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(join(REPO_ROOT, path), 'utf8')) as T;

describe('platform-bound packages', () => {
  const cases: Array<{ name: string; entry: LockEntry; hard: boolean }> = [
    { name: 'a Linux x64 binary needed at run time', entry: { os: ['linux'], cpu: ['x64'] }, hard: true },
    { name: 'a package bound by cpu alone', entry: { cpu: ['arm64'] }, hard: true },
    { name: 'an optional binary (npm skips it where it does not fit)', entry: { os: ['linux'], cpu: ['x64'], optional: true }, hard: false },
    { name: 'a development-only binary', entry: { os: ['linux'], cpu: ['x64'], dev: true }, hard: false },
    { name: 'a binary that is optional in production and a dev dependency', entry: { os: ['darwin'], devOptional: true }, hard: false },
    { name: 'a package for every platform', entry: {}, hard: false },
  ];
  for (const c of cases) {
    it(`${c.hard ? 'flags' : 'allows'} ${c.name}`, () => {
      assert.deepEqual(hardPlatformBound({ '': {}, 'node_modules/p': c.entry }), c.hard ? ['node_modules/p'] : []);
    });
  }

  it('none is a hard dependency of the Hub in package-lock.json', () => {
    const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json');
    assert.deepEqual(hardPlatformBound(lock.packages), []);
  });

  it('no direct runtime dependency in package.json declares an os or cpu', () => {
    const pkg = readJson<{ dependencies: Record<string, string> }>('package.json');
    const bound = Object.keys(pkg.dependencies).filter((name) => {
      const manifest = readJson<{ os?: unknown; cpu?: unknown }>(`node_modules/${name}/package.json`);
      return manifest.os !== undefined || manifest.cpu !== undefined;
    });
    assert.deepEqual(bound, []);
  });

  it('the engine used by tests and demo --real is a development dependency, with its Linux x64 binary installed here', () => {
    const pkg = readJson<{ dependencies: Record<string, string>; devDependencies: Record<string, string> }>('package.json');
    assert.equal(pkg.dependencies['node-llama-cpp'], undefined);
    assert.ok(pkg.devDependencies['node-llama-cpp']);
    if (process.platform === 'linux' && process.arch === 'x64') {
      assert.ok(readJson<{ name: string }>('node_modules/@node-llama-cpp/linux-x64/package.json').name);
    }
  });
});
