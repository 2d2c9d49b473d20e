import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NVIDIA_SMI_ARGS, parseNvidiaMemory, probeHardware, nvidiaSmiRunner, type CommandRun, type HardwareProbeDeps } from './hardware-probe.js';
import { decideTier } from './hardware-tier.js';

const GIB = 1024 ** 3;
let root: string;
beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'cihub-hw-'))));
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A Linux machine with 32 GiB, no drm directory, no NVIDIA driver, no nvidia-smi, unless a row says otherwise. */
function deps(over: Partial<HardwareProbeDeps> = {}): HardwareProbeDeps {
  return {
    platform: 'linux',
    arch: 'x64',
    totalMemoryBytes: 32 * GIB,
    nvidiaSmi: null,
    runNvidiaSmi: async () => ({ ok: false, detail: 'not expected to run' }),
    drmDir: join(root, 'drm'),
    nvidiaProcDir: join(root, 'proc-nvidia'),
    procVersionFile: join(root, 'proc-version'),
    // An Intel Mac's answer: the key does not exist there.
    runSysctl: async () => ({ ok: false, detail: 'exit 1' }),
    ...over,
  };
}

function amdCard(name: string, vendor: string, vramBytes: string | null): void {
  const dir = join(root, 'drm', name, 'device');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'vendor'), `${vendor}\n`);
  if (vramBytes !== null) writeFileSync(join(dir, 'mem_info_vram_total'), `${vramBytes}\n`);
}

const smi = (run: CommandRun) => ({ nvidiaSmi: '/usr/bin/nvidia-smi', runNvidiaSmi: async () => run });

describe('probeHardware: what the machine has', () => {
  it('finds no GPU on Linux without a drm directory or an NVIDIA driver: cpu-only by memory', async () => {
    const f = await probeHardware(deps());
    assert.deepEqual(f.gpus, []);
    assert.equal(decideTier(f).tier, 'cpu-only');
  });

  it('sizes NVIDIA cards from nvidia-smi (MiB per line), with the arguments it asks for', async () => {
    let asked: readonly string[] = [];
    const f = await probeHardware(
      deps({ nvidiaSmi: '/opt/nvidia-smi', runNvidiaSmi: async (_bin, args) => ((asked = args), { ok: true, stdout: '24564\n24564\n' }) }),
    );
    assert.deepEqual(asked, NVIDIA_SMI_ARGS);
    assert.deepEqual(
      f.gpus?.map((g) => [g.vendor, g.memoryBytes]),
      [
        ['nvidia', 24564 * 1024 ** 2],
        ['nvidia', 24564 * 1024 ** 2],
      ],
    );
    assert.equal(decideTier(f).tier, 'high-end');
  });

  it('reads an NVIDIA driver with nvidia-smi failing as a GPU of unknown size: no tier, not cpu-only', async () => {
    mkdirSync(join(root, 'proc-nvidia'));
    const f = await probeHardware(deps(smi({ ok: false, detail: `no answer within 5000 ms` })));
    assert.equal(decideTier(f).tier, null);
  });

  it('reads an NVIDIA driver without nvidia-smi on PATH as a GPU of unknown size', async () => {
    mkdirSync(join(root, 'proc-nvidia'));
    const f = await probeHardware(deps());
    assert.equal(f.gpus?.[0]?.vendor, 'nvidia');
    assert.equal(decideTier(f).tier, null);
  });

  it('reads nvidia-smi answering [N/A] for the memory (a unified-memory board such as GB10) as a GPU of unknown size, driver directory or not', async () => {
    for (const driverDir of [false, true]) {
      if (driverDir) mkdirSync(join(root, 'proc-nvidia'));
      const f = await probeHardware(deps(smi({ ok: true, stdout: '[N/A]\n' })));
      assert.deepEqual(
        f.gpus?.map((g) => [g.vendor, g.memoryBytes]),
        [['nvidia', null]],
      );
      assert.equal(decideTier(f).tier, null, 'no tier, not cpu-only');
    }
  });

  it('reads nvidia-smi failing with no driver loaded as no NVIDIA GPU', async () => {
    const f = await probeHardware(deps(smi({ ok: false, detail: 'exit 9' })));
    assert.deepEqual(f.gpus, []);
  });

  it('finds AMD cards by vendor 0x1002 and sizes them from mem_info_vram_total', async () => {
    amdCard('card0', '0x8086', '536870912');
    amdCard('card1', '0x1002', String(16 * GIB));
    amdCard('card1-DP-1', '0x1002', String(64 * GIB));
    const f = await probeHardware(deps());
    assert.deepEqual(
      f.gpus?.map((g) => [g.vendor, g.memoryBytes]),
      [['amd', 16 * GIB]],
    );
    assert.equal(decideTier(f).tier, 'mid-range');
  });

  it('reads an NVIDIA card the drm directory shows, with nothing else describing it, as unsized: no tier, not cpu-only', async () => {
    amdCard('card0', '0x10de', null);
    const f = await probeHardware(deps());
    assert.deepEqual(f.gpus, [{ vendor: 'nvidia', memoryBytes: null, via: join(root, 'drm', 'card0') }]);
    assert.equal(decideTier(f).tier, null);
  });

  it('does not count an NVIDIA card twice when nvidia-smi has sized it', async () => {
    amdCard('card0', '0x10de', null);
    const f = await probeHardware(deps(smi({ ok: true, stdout: '12288\n' })));
    assert.deepEqual(
      f.gpus?.map((g) => g.via),
      ['nvidia-smi'],
    );
    assert.equal(decideTier(f).tier, 'mid-range');
  });

  it('reads an AMD card without a VRAM size as unknown: no tier', async () => {
    amdCard('card0', '0x1002', null);
    assert.equal(decideTier(await probeHardware(deps())).tier, null);
  });

  it('cannot tell when the drm directory is there but cannot be listed', async () => {
    // A symlink loop: listing it fails with ELOOP for every user, root included.
    symlinkSync(join(root, 'drm-b'), join(root, 'drm'));
    symlinkSync(join(root, 'drm'), join(root, 'drm-b'));
    const f = await probeHardware(deps());
    assert.equal(f.gpus, null);
    assert.match(f.problem ?? '', /could not be read \(ELOOP\)/);
    assert.equal(decideTier(f).tier, null);
  });

  it('reports memory os.totalmem() could not read (it answers 0) as unknown, not as none', async () => {
    const linux = await probeHardware(deps({ totalMemoryBytes: 0 }));
    assert.equal(linux.memoryBytes, null);
    assert.equal(decideTier(linux).unknownBecause, 'system memory could not be read');
    const mac = await probeHardware(deps({ platform: 'darwin', arch: 'arm64', totalMemoryBytes: 0 }));
    assert.deepEqual([mac.memoryBytes, mac.gpus], [null, [{ vendor: 'apple', memoryBytes: null, via: 'unified memory' }]]);
    assert.equal(decideTier(mac).tier, null);
  });

  it('counts two thirds of unified memory as the GPU on Apple silicon', async () => {
    const f = await probeHardware(deps({ platform: 'darwin', arch: 'arm64', totalMemoryBytes: 36 * GIB }));
    assert.deepEqual(f.gpus, [{ vendor: 'apple', memoryBytes: 24 * GIB, via: 'unified memory' }]);
    assert.equal(decideTier(f).tier, 'high-end');
  });

  for (const [vm, kernel] of [
    ['Docker Desktop on macOS', 'Linux version 6.10.14-linuxkit (root@buildkitsandbox) (gcc 13.2.1) #1 SMP'],
    ['WSL2', 'Linux version 5.15.167.4-microsoft-standard-WSL2 (root@f9c826d3017f) (gcc 11.2.0) #1 SMP'],
  ])
    it(`does not judge ${vm}'s VM as a CPU node when it finds no GPU: the host's is not visible there`, async () => {
      writeFileSync(join(root, 'proc-version'), `${kernel}\n`);
      const f = await probeHardware(deps({ totalMemoryBytes: 8 * GIB }));
      assert.equal(f.gpus, null);
      assert.match(f.problem ?? '', /desktop VM/);
      assert.equal(decideTier(f).tier, null);
    });

  it('still sizes a GPU nvidia-smi reports inside WSL2', async () => {
    writeFileSync(join(root, 'proc-version'), 'Linux version 5.15.167.4-microsoft-standard-WSL2\n');
    const f = await probeHardware(deps({ ...smi({ ok: true, stdout: '24564\n' }) }));
    assert.equal(decideTier(f).tier, 'high-end');
  });

  it('judges an ordinary Linux kernel with no GPU on its memory', async () => {
    writeFileSync(join(root, 'proc-version'), 'Linux version 6.1.0-27-amd64 (debian-kernel@lists.debian.org)\n');
    assert.equal(decideTier(await probeHardware(deps())).tier, 'cpu-only');
  });

  it('counts Apple silicon when an x64 Node runs under Rosetta there (the machine says arm64)', async () => {
    const asked: string[] = [];
    const runSysctl = async (name: string) => {
      asked.push(name);
      return { ok: true as const, stdout: '1\n' };
    };
    const f = await probeHardware(deps({ platform: 'darwin', arch: 'x64', totalMemoryBytes: 36 * GIB, runSysctl }));
    assert.deepEqual(asked, ['hw.optional.arm64']);
    assert.deepEqual(f.gpus, [{ vendor: 'apple', memoryBytes: 24 * GIB, via: 'unified memory (Node runs under Rosetta)' }]);
    assert.equal(decideTier(f).tier, 'high-end');
  });

  it('counts no GPU on an Intel Mac', async () => {
    const f = await probeHardware(deps({ platform: 'darwin', arch: 'x64', totalMemoryBytes: 16 * GIB }));
    assert.deepEqual(f.gpus, []);
    assert.equal(decideTier(f).tier, 'cpu-only');
  });

  it('does not guess on a platform it cannot read', async () => {
    const f = await probeHardware(deps({ platform: 'win32' }));
    assert.equal(f.gpus, null);
    assert.equal(decideTier(f).tier, null);
  });
});

describe('parseNvidiaMemory', () => {
  const rows: readonly { out: string; mib: number[] | null }[] = [
    { out: '24564\n', mib: [24564] },
    { out: ' 8192 \n 8192 \n', mib: [8192, 8192] },
    { out: '[N/A]\n', mib: null },
    { out: '', mib: null },
    { out: 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.\n', mib: null },
  ];
  for (const r of rows) it(`reads ${JSON.stringify(r.out)} as ${JSON.stringify(r.mib)}`, () => assert.deepEqual(parseNvidiaMemory(r.out), r.mib));
});

describe('nvidiaSmiRunner', () => {
  it('answers a record, never a throw, for a binary that is not there', async () => {
    const run = await nvidiaSmiRunner(join(root, 'absent-nvidia-smi'), NVIDIA_SMI_ARGS);
    assert.deepEqual(run, { ok: false, detail: 'ENOENT' });
  });

  it('runs the binary without a shell and returns what it printed', async () => {
    const bin = join(root, 'nvidia-smi');
    writeFileSync(bin, '#!/bin/sh\necho 12288\n');
    chmodSync(bin, 0o755);
    assert.deepEqual(await nvidiaSmiRunner(bin, NVIDIA_SMI_ARGS), { ok: true, stdout: '12288\n' });
  });
});
