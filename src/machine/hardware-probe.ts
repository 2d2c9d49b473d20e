/**
 * Finds what the machine has, for the hardware tier (hardware-tier.ts). Run once at start, in
 * the background; it never throws and never hangs: files are read through small-files.ts, and
 * nvidia-smi runs without a shell, under a 5 s deadline and an output bound.
 *
 * - NVIDIA: `nvidia-smi --query-gpu=memory.total` (MiB per card). A driver that is loaded
 *   (/proc/driver/nvidia) while nvidia-smi is missing or fails is a GPU of unknown size.
 * - AMD: each /sys/class/drm/cardN whose device/vendor is 0x1002, sized by
 *   device/mem_info_vram_total. No drm directory means no DRM driver, so no AMD GPU an engine
 *   could use; one that cannot be read means detection cannot tell. A card there with vendor
 *   0x10de is an NVIDIA GPU even when nvidia-smi and /proc say nothing (a container): unsized.
 * - Apple silicon: the GPU shares system memory (APPLE_GPU_SHARE of it). An arm64 Node says so
 *   itself; an x64 Node may be running under Rosetta on Apple silicon, where os.arch() reports
 *   the build's x64, so the machine is asked (`sysctl -n hw.optional.arm64`: 1 on Apple silicon,
 *   under Rosetta too; an Intel Mac has no such key, so the call fails).
 * - Intel Macs and every other GPU: engines serve on the CPU there, so none counts.
 * - Linux inside Docker Desktop's VM (macOS: a linuxkit kernel; Windows: WSL2's microsoft one),
 *   with no GPU found: the host's GPU is not visible from there (Metal never is), so detection
 *   cannot tell, rather than judging the VM's memory as a CPU node's. /proc/version names it.
 * - Any other platform: detection cannot tell (no tier).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { APPLE_GPU_SHARE, type DetectedGpu, type HardwareFacts } from './hardware-tier.js';
import { listDir, readSmallFile } from './small-files.js';

/** nvidia-smi answers in well under a second; 5 s covers a busy machine without holding anything up. */
export const NVIDIA_SMI_TIMEOUT_MS = 5_000;
/** One line per card; 64 KiB is hundreds of cards. */
export const NVIDIA_SMI_MAX_BYTES = 64 * 1024;
/** Where the kernel lists DRM devices, and where a loaded NVIDIA driver shows itself. */
export const SYS_DRM_DIR = '/sys/class/drm';
export const PROC_NVIDIA_DIR = '/proc/driver/nvidia';
/** The running kernel's name and build, which says whether it is a desktop VM's. */
export const PROC_VERSION_FILE = '/proc/version';
/** Kernels of the VMs Docker Desktop runs Linux in: linuxkit on macOS, WSL2's on Windows. */
const DESKTOP_VM_KERNEL = /linuxkit|microsoft/i;
const AMD_VENDOR_ID = '0x1002';
const NVIDIA_VENDOR_ID = '0x10de';
const MIB = 1024 ** 2;

export type CommandRun = { readonly ok: true; readonly stdout: string } | { readonly ok: false; readonly detail: string };

export interface HardwareProbeDeps {
  readonly platform: NodeJS.Platform;
  readonly arch: string;
  readonly totalMemoryBytes: number;
  /** nvidia-smi as found on PATH at start (config); null when there is none. */
  readonly nvidiaSmi: string | null;
  /** Runs nvidia-smi with these arguments (nvidiaSmiRunner in the Hub, a stand-in in tests). */
  readonly runNvidiaSmi: (binary: string, args: readonly string[]) => Promise<CommandRun>;
  /** /sys/class/drm in the Hub; a temporary directory laid out like it in tests. */
  readonly drmDir: string;
  /** /proc/driver/nvidia in the Hub. */
  readonly nvidiaProcDir: string;
  /** /proc/version in the Hub. */
  readonly procVersionFile: string;
  /** `sysctl -n <name>` (sysctlRunner in the Hub); asked only on macOS when Node itself is x64. */
  readonly runSysctl: (name: string) => Promise<CommandRun>;
}

/** Where macOS keeps sysctl; run by path, without a shell. */
export const SYSCTL_PATH = '/usr/sbin/sysctl';

/** `sysctl -n <name>` under nvidia-smi's bounds (a deadline and an output cap), every outcome a record. */
export function sysctlRunner(name: string): Promise<CommandRun> {
  return nvidiaSmiRunner(SYSCTL_PATH, ['-n', name]);
}

export const NVIDIA_SMI_ARGS = ['--query-gpu=memory.total', '--format=csv,noheader,nounits'] as const;

export async function probeHardware(deps: HardwareProbeDeps): Promise<HardwareFacts> {
  // os.totalmem() answers 0 when it cannot read the figure: that is no reading, not a machine with none.
  const memoryBytes = deps.totalMemoryBytes > 0 ? deps.totalMemoryBytes : null;
  const base = { platform: deps.platform, arch: deps.arch, memoryBytes };
  if (deps.platform === 'darwin') {
    const apple = deps.arch === 'arm64' ? 'unified memory' : (await appleSiliconUnderRosetta(deps)) ? 'unified memory (Node runs under Rosetta)' : null;
    const share = memoryBytes === null ? null : Math.floor(memoryBytes * APPLE_GPU_SHARE);
    const gpus: DetectedGpu[] = apple === null ? [] : [{ vendor: 'apple', memoryBytes: share, via: apple }];
    return { ...base, gpus, problem: null };
  }
  if (deps.platform !== 'linux') return { ...base, gpus: null, problem: `GPU detection is not implemented on ${deps.platform}` };
  const nvidia = await probeNvidia(deps);
  const drm = await probeDrm(deps.drmDir);
  if (nvidia.gpus === null || drm.amd === null) return { ...base, gpus: null, problem: nvidia.problem ?? drm.problem };
  // An NVIDIA card the drm directory shows, that neither nvidia-smi nor /proc could describe, is still a GPU: of unknown size.
  const unseenNvidia: DetectedGpu[] = nvidia.gpus.length === 0 ? drm.nvidiaCards.map((via) => ({ vendor: 'nvidia', memoryBytes: null, via })) : [];
  const gpus = [...nvidia.gpus, ...unseenNvidia, ...drm.amd];
  if (gpus.length === 0) {
    const kernel = await readSmallFile(deps.procVersionFile);
    if (kernel.kind === 'ok' && DESKTOP_VM_KERNEL.test(kernel.text))
      return { ...base, gpus: null, problem: "running in a desktop VM (Docker Desktop or WSL2), where the host's GPU is not visible" };
  }
  return { ...base, gpus, problem: null };
}

/** Whether an x64 Node on macOS runs on Apple silicon; a failed or odd answer reads as an Intel Mac, whose engines serve on the CPU. */
async function appleSiliconUnderRosetta(deps: HardwareProbeDeps): Promise<boolean> {
  const run = await deps.runSysctl('hw.optional.arm64');
  return run.ok && run.stdout.trim() === '1';
}

interface Found {
  readonly gpus: readonly DetectedGpu[] | null;
  readonly problem: string | null;
}

async function probeNvidia(deps: HardwareProbeDeps): Promise<Found> {
  const proc = await listDir(deps.nvidiaProcDir);
  const driverLoaded = proc.kind === 'ok';
  if (deps.nvidiaSmi !== null) {
    const run = await deps.runNvidiaSmi(deps.nvidiaSmi, NVIDIA_SMI_ARGS);
    const sizes = run.ok ? parseNvidiaMemory(run.stdout) : null;
    if (sizes !== null) return { gpus: sizes.map((mib) => ({ vendor: 'nvidia', memoryBytes: mib * MIB, via: 'nvidia-smi' })), problem: null };
    // nvidia-smi that cannot talk to a driver, on a machine with no driver loaded: no usable NVIDIA
    // GPU. One that answered without a size did find one: a unified-memory board (DGX Spark's GB10)
    // prints [N/A] for memory.total, on a Jetson-like box with no /proc/driver/nvidia too.
    if (proc.kind === 'absent' && !run.ok) return { gpus: [], problem: null };
    return { gpus: [{ vendor: 'nvidia', memoryBytes: null, via: `nvidia-smi (${run.ok ? 'unparseable output' : run.detail})` }], problem: null };
  }
  if (driverLoaded) return { gpus: [{ vendor: 'nvidia', memoryBytes: null, via: `${deps.nvidiaProcDir} (nvidia-smi not on PATH)` }], problem: null };
  if (proc.kind === 'unreadable') return { gpus: null, problem: `${deps.nvidiaProcDir} could not be read (${proc.code})` };
  return { gpus: [], problem: null };
}

/** MiB per card, one integer a line; null when any line is not one (or there are none). */
export function parseNvidiaMemory(stdout: string): number[] | null {
  const lines = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0 || !lines.every((l) => /^\d{1,9}$/.test(l))) return null;
  return lines.map(Number);
}

/** AMD cards sized from the drm directory (null: it could not be read), and NVIDIA cards it shows. */
async function probeDrm(
  drmDir: string,
): Promise<{ readonly amd: readonly DetectedGpu[] | null; readonly nvidiaCards: readonly string[]; readonly problem: string | null }> {
  const listing = await listDir(drmDir);
  if (listing.kind === 'absent') return { amd: [], nvidiaCards: [], problem: null };
  if (listing.kind === 'unreadable') return { amd: null, nvidiaCards: [], problem: `${drmDir} could not be read (${listing.code})` };
  const gpus: DetectedGpu[] = [];
  const nvidiaCards: string[] = [];
  for (const card of listing.names.filter((n) => /^card\d+$/.test(n))) {
    const vendor = await readSmallFile(join(drmDir, card, 'device', 'vendor'));
    const id = vendor.kind === 'ok' ? vendor.text.trim().toLowerCase() : null;
    if (id === NVIDIA_VENDOR_ID) nvidiaCards.push(join(drmDir, card));
    if (id !== AMD_VENDOR_ID) continue;
    const vram = await readSmallFile(join(drmDir, card, 'device', 'mem_info_vram_total'));
    const bytes = vram.kind === 'ok' && /^\s*\d{1,16}\s*$/.test(vram.text) ? Number(vram.text.trim()) : null;
    gpus.push({ vendor: 'amd', memoryBytes: bytes, via: join(drmDir, card) });
  }
  return { amd: gpus, nvidiaCards, problem: null };
}

/** Runs nvidia-smi: no shell, NVIDIA_SMI_TIMEOUT_MS, NVIDIA_SMI_MAX_BYTES of output; every outcome a record. */
export function nvidiaSmiRunner(binary: string, args: readonly string[]): Promise<CommandRun> {
  return new Promise((resolve) => {
    execFile(
      binary,
      [...args],
      { timeout: NVIDIA_SMI_TIMEOUT_MS, maxBuffer: NVIDIA_SMI_MAX_BYTES, killSignal: 'SIGKILL', windowsHide: true, encoding: 'utf8' },
      (error, stdout) => {
        if (error === null) resolve({ ok: true, stdout });
        else {
          const e = error as NodeJS.ErrnoException & { killed?: boolean };
          resolve({
            ok: false,
            detail: e.killed ? `no answer within ${NVIDIA_SMI_TIMEOUT_MS} ms` : typeof e.code === 'string' ? e.code : `exit ${String(e.code ?? 'unknown')}`,
          });
        }
      },
    );
  });
}
