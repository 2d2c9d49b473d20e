/**
 * The deploy files (issue 12, item 2) are well-formed and say what the Hub needs: the systemd
 * unit passes `systemd-analyze verify` and leaves the NVIDIA devices visible, the packed package
 * the systemd recipe installs holds the built Hub and dashboard, the launchd plist parses as a
 * property list, the compose file parses as YAML, and the Dockerfile is multi-stage, non-root,
 * keeps its data in a volume, reaches engines at host.docker.internal on their usual ports,
 * allocates with jemalloc, checks health on /readyz and carries the built dashboard where the Hub
 * looks for it. No image is built here (that needs a Docker daemon); the Dockerfile is read
 * instruction by instruction.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { REPO_ROOT } from '../helpers/hub-process.js';
import { assertInstalled, onPath } from '../helpers/required-tool.js';
import { DEFAULT_ENGINE_URLS, DEFAULT_API_PORT } from '../../src/config/env.js';
import { READYZ_PATH } from '../../src/http/health-routes.js';
import { SHUTDOWN_DRAIN_TIMEOUT_MS } from '../../src/system.js';
import { WEB_DIST_DIR } from '../../src/dashboard/web-assets.js';

const file = (path: string): string => join(REPO_ROOT, path);
const read = (path: string): string => readFileSync(file(path), 'utf8');

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

const KNOWN = new Set([
  'FROM',
  'RUN',
  'CMD',
  'LABEL',
  'EXPOSE',
  'ENV',
  'ADD',
  'COPY',
  'ENTRYPOINT',
  'VOLUME',
  'USER',
  'WORKDIR',
  'ARG',
  'ONBUILD',
  'STOPSIGNAL',
  'HEALTHCHECK',
  'SHELL',
]);

/** Dockerfile instructions with continuation lines joined and comments dropped. */
export function dockerInstructions(text: string): Instruction[] {
  const logical: string[] = [];
  let current = '';
  for (const line of text.split('\n')) {
    if (current === '' && /^\s*(#|$)/.test(line)) continue;
    const trimmed = line.replace(/\s+$/, '');
    if (trimmed.endsWith('\\')) current += `${trimmed.slice(0, -1)} `;
    else {
      logical.push(current + trimmed);
      current = '';
    }
  }
  return logical.map((l) => {
    const m = /^\s*(\S+)\s*(.*)$/.exec(l)!;
    return { keyword: m[1]!.toUpperCase(), args: m[2]! };
  });
}

/** The instructions of each stage, by its `AS` name (the unnamed final stage is ''). */
function dockerStages(all: readonly Instruction[]): Map<string, Instruction[]> {
  const stages = new Map<string, Instruction[]>();
  let current: Instruction[] = [];
  for (const i of all) {
    if (i.keyword === 'FROM') {
      current = [];
      stages.set(/\sAS\s+(\S+)\s*$/i.exec(i.args)?.[1] ?? '', current);
    } else current.push(i);
  }
  return stages;
}

/** Where a COPY lands in its stage: the destination, resolved against the stage's WORKDIR at that point. */
function copies(stage: readonly Instruction[]): { from: string | null; source: string; dest: string }[] {
  const out: { from: string | null; source: string; dest: string }[] = [];
  let workdir = '/';
  for (const i of stage) {
    if (i.keyword === 'WORKDIR') workdir = posix.resolve(workdir, i.args.trim());
    if (i.keyword !== 'COPY') continue;
    const words = i.args.trim().split(/\s+/);
    const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length) ?? null;
    const paths = words.filter((w) => !w.startsWith('--'));
    for (const source of paths.slice(0, -1)) out.push({ from, source, dest: posix.resolve(workdir, paths.at(-1)!) });
  }
  return out;
}

describe('Dockerfile', () => {
  const all = dockerInstructions(read('Dockerfile'));
  const lastFrom = all.map((i) => i.keyword).lastIndexOf('FROM');
  const final = all.slice(lastFrom);
  const envOf = (name: string): string | undefined => {
    for (const i of final.filter((x) => x.keyword === 'ENV')) {
      const m = new RegExp(`(?:^|\\s)${name}=(\\S+)`).exec(i.args);
      if (m) return m[1];
    }
    return undefined;
  };

  it('has only known instructions, and more than one stage', () => {
    assert.deepEqual(
      all.filter((i) => !KNOWN.has(i.keyword)),
      [],
    );
    assert.ok(all.filter((i) => i.keyword === 'FROM').length >= 2);
  });

  it('runs the Hub as a user that is not root', () => {
    const users = final.filter((i) => i.keyword === 'USER').map((i) => i.args.trim());
    assert.ok(users.length > 0 && !['root', '0', '0:0'].includes(users.at(-1)!), `final USER: ${users.at(-1)}`);
  });

  it('keeps the data dir in a volume and points CIHUB_DATA_DIR at it', () => {
    const volume = final.find((i) => i.keyword === 'VOLUME');
    assert.ok(volume, 'a VOLUME');
    assert.match(volume.args, new RegExp(`"${envOf('CIHUB_DATA_DIR')}"`));
  });

  it('reaches each engine at host.docker.internal on its usual port, and listens on every interface', () => {
    for (const [kind, url] of Object.entries(DEFAULT_ENGINE_URLS)) {
      const port = new URL(url).port;
      assert.equal(envOf(`${kind.toUpperCase()}_URL`), `http://host.docker.internal:${port}`, kind);
    }
    assert.equal(envOf('HUB_HOST'), '0.0.0.0');
    assert.equal(envOf('API_PORT'), String(DEFAULT_API_PORT));
    assert.ok(final.some((i) => i.keyword === 'EXPOSE' && i.args.trim() === String(DEFAULT_API_PORT)));
  });

  it('runs the Hub on jemalloc with its background thread, installed in the final stage', () => {
    assert.ok(final.some((i) => i.keyword === 'RUN' && /apt-get install .*\blibjemalloc2\b/.test(i.args)));
    assert.equal(envOf('LD_PRELOAD'), 'libjemalloc.so.2', 'a bare name: the loader finds it on amd64 and arm64 alike');
    assert.match(envOf('MALLOC_CONF') ?? '', /(^|,)background_thread:true(,|$)/);
    assert.equal(envOf('MALLOC_ARENA_MAX'), undefined, "glibc's setting means nothing once jemalloc allocates");
  });

  it('checks health on the readiness route', () => {
    const check = final.find((i) => i.keyword === 'HEALTHCHECK');
    assert.ok(check);
    assert.ok(check.args.includes(`'${READYZ_PATH}'`), check.args);
  });

  it('builds the dashboard and puts it in the final image where the Hub reads it', () => {
    const stages = dockerStages(all);
    const finalCopies = copies([...stages.values()].at(-1)!);
    // The compiled Hub in the image, and from it the web/dist the code resolves (WEB_DIST_DIR, relative to its own module).
    const code = finalCopies.find((c) => c.source.endsWith('/dist/src'));
    assert.ok(code?.from, 'the compiled Hub is copied from a build stage');
    const webDistFromModule = relative(join(REPO_ROOT, 'dist/src/dashboard'), WEB_DIST_DIR);
    const expected = posix.resolve(code.dest, 'dashboard', webDistFromModule.split('\\').join('/'));

    const build = stages.get(code.from);
    assert.ok(build, `a stage named ${code.from}`);
    const buildDir =
      build
        .filter((i) => i.keyword === 'WORKDIR')
        .at(-1)
        ?.args.trim() ?? '/';
    assert.ok(
      copies(build).some((c) => c.from === null && c.source === 'web' && c.dest === posix.resolve(buildDir, 'web')),
      'the build stage has the web app sources (web/, with its vite config)',
    );
    // npm ci --ignore-scripts skips `prepare`, so the build must be asked for by name.
    assert.ok(
      build.some((i) => i.keyword === 'RUN' && /\bnpm run build:web\b/.test(i.args)),
      'the build stage runs build:web',
    );
    const web = finalCopies.find((c) => c.dest === expected);
    assert.ok(web, `the final stage copies something to ${expected}, where the Hub looks for the dashboard`);
    assert.equal(web.from, code.from);
    assert.equal(web.source, posix.resolve(buildDir, 'web/dist'), 'what build:web wrote');
  });

  it('ships no development dependency into the final image', () => {
    const deps = all.filter((i) => i.keyword === 'RUN' && i.args.includes('npm ci'));
    assert.ok(deps.some((i) => i.args.includes('--omit=dev')));
    assert.ok(
      final.every((i) => i.keyword !== 'RUN' || !i.args.includes('npm ')),
      'the final stage installs nothing itself',
    );
  });
});

describe('systemd unit', () => {
  const unit = read('deploy/cihub.service');
  it('passes systemd-analyze verify', () => {
    assertInstalled('systemd-analyze', onPath('systemd-analyze'), 'command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)');
    const res = spawnSync('systemd-analyze', ['verify', file('deploy/cihub.service')], { encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    assert.equal(res.stderr.trim(), '', 'no warnings');
  });
  it('leaves /dev visible, so nvidia-smi can size an NVIDIA card for the hardware tier', () => {
    assert.doesNotMatch(unit, /^PrivateDevices=(yes|true|on|1)\s*$/m, 'PrivateDevices= hides /dev/nvidia*');
    assert.doesNotMatch(unit, /^DevicePolicy=(closed|strict)\s*$/m, 'a closed device policy denies /dev/nvidia* as well');
  });
  it('hides home directories, which the documented recipe does not need (it installs a packed copy)', () => {
    assert.match(unit, /^ProtectHome=yes$/m);
    const recipe = /## systemd \(Linux\)\n+```sh\n([\s\S]*?)```/.exec(read('docs/deploy.md'))?.[1] ?? '';
    assert.match(recipe, /^npm install && npm pack\b/m);
    assert.match(recipe, /^sudo npm install -g \.\/cihub-\*\.tgz\b/m);
    assert.doesNotMatch(recipe, /npm install -g <path/, 'a folder install is a link into the checkout, which ProtectHome can hide');
  });
  it("caps glibc's allocator at two arenas", () => {
    assert.match(unit, /^Environment=MALLOC_ARENA_MAX=2$/m);
  });
  it('runs as its own user, keeps its data in its state dir and waits out the drain', () => {
    assert.match(unit, /^User=cihub$/m);
    assert.match(unit, /^StateDirectory=cihub$/m);
    assert.match(unit, /^Environment=CIHUB_DATA_DIR=\/var\/lib\/cihub$/m);
    const stop = Number(/^TimeoutStopSec=(\d+)$/m.exec(unit)?.[1]);
    assert.ok(stop * 1000 > SHUTDOWN_DRAIN_TIMEOUT_MS, `TimeoutStopSec ${stop} s outlasts the ${SHUTDOWN_DRAIN_TIMEOUT_MS} ms drain`);
  });
});

describe('the packed package (what `npm install -g ./cihub-*.tgz` installs)', () => {
  const packed = (): Set<string> => {
    const res = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    return new Set((JSON.parse(res.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path));
  };
  // npm runs this suite and builds web/dist first (npm test), so neither is a reason to skip.
  it('holds the command, the compiled Hub it runs and the docs the unit names, and no tests', () => {
    const files = packed();
    const bin = (JSON.parse(read('package.json')) as { bin: Record<string, string> }).bin.cihub!;
    assert.ok(files.has(bin), bin);
    const entry = /new URL\('([^']+)', import\.meta\.url\)/.exec(read(bin))?.[1];
    assert.ok(entry, `${bin} names the script it runs`);
    assert.ok(files.has(posix.join(posix.dirname(bin), entry)), entry);
    const documentation = /^Documentation=file:\/\/\/usr\/local\/lib\/node_modules\/cihub\/(\S+)$/m.exec(read('deploy/cihub.service'))?.[1];
    assert.ok(documentation && files.has(documentation), `the unit's Documentation= (${documentation})`);
    assert.deepEqual(
      [...files].filter((f) => /\.test\.js(\.map)?$/.test(f)),
      [],
    );
  });

  it('holds the built dashboard where the Hub reads it', () => {
    assert.ok(packed().has(relative(REPO_ROOT, join(WEB_DIST_DIR, 'index.html')).split('\\').join('/')));
  });
});

describe('launchd plist', () => {
  it('is a property list that runs cihub serve and waits out the drain', () => {
    assertInstalled('python3 (plistlib)', onPath('python3'), 'command -v python3 >/dev/null 2>&1 || missing+=(python3)');
    const res = spawnSync(
      'python3',
      ['-c', 'import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], "rb"))))', file('deploy/com.cihub.hub.plist')],
      { encoding: 'utf8' },
    );
    assert.equal(res.status, 0, res.stderr);
    const plist = JSON.parse(res.stdout) as { Label: string; ProgramArguments: string[]; ExitTimeOut: number; RunAtLoad: boolean };
    assert.equal(plist.Label, 'com.cihub.hub');
    assert.deepEqual(plist.ProgramArguments.slice(-2), ['cihub', 'serve']);
    assert.equal(plist.RunAtLoad, true);
    assert.ok(plist.ExitTimeOut * 1000 > SHUTDOWN_DRAIN_TIMEOUT_MS);
  });
});

describe('the Docker recipe in docs/deploy.md', () => {
  // Docker sends SIGKILL 10 s after SIGTERM unless told otherwise, which would cut the drain short.
  it('gives the container longer than the drain before Docker kills it', () => {
    const recipe = /## Docker\n+```sh\n([\s\S]*?)```/.exec(read('docs/deploy.md'))?.[1] ?? '';
    const run = /^docker run\b.*(?:\\\n.*)*/m.exec(recipe)?.[0];
    assert.ok(run, 'the recipe has a docker run line');
    const stop = Number(/--stop-timeout[ =](\d+)\b/.exec(run)?.[1]);
    assert.ok(stop * 1000 > SHUTDOWN_DRAIN_TIMEOUT_MS, `--stop-timeout ${stop} s outlasts the ${SHUTDOWN_DRAIN_TIMEOUT_MS} ms drain`);
  });
});

describe('compose example', () => {
  it('is YAML with a Hub beside an Ollama container, data in a volume, waiting out the drain', () => {
    assertInstalled(
      'python3 with PyYAML',
      spawnSync('python3', ['-c', 'import yaml']).status === 0,
      'apt-get install -y --no-install-recommends python3-yaml || python3 -m pip install pyyaml',
    );
    const res = spawnSync(
      'python3',
      ['-c', 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', file('deploy/docker-compose.example.yml')],
      { encoding: 'utf8' },
    );
    assert.equal(res.status, 0, res.stderr);
    const doc = JSON.parse(res.stdout) as {
      services: Record<string, { environment?: Record<string, string>; volumes?: string[]; extra_hosts?: string[]; stop_grace_period?: string }>;
    };
    assert.deepEqual(Object.keys(doc.services).sort(), ['cihub', 'ollama']);
    const hub = doc.services.cihub!;
    assert.equal(hub.environment?.OLLAMA_URL, 'http://ollama:11434');
    assert.ok(hub.volumes?.some((v) => v.endsWith(':/data')));
    assert.ok(hub.extra_hosts?.includes('host.docker.internal:host-gateway'));
    const grace = Number(/^(\d+)s$/.exec(hub.stop_grace_period ?? '')?.[1]);
    assert.ok(grace * 1000 > SHUTDOWN_DRAIN_TIMEOUT_MS, `stop_grace_period ${hub.stop_grace_period} outlasts the drain`);
  });
});
