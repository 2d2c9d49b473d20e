/**
 * The one place the Hub runs the `tailscale` executable: no shell, a deadline, and a bound on
 * what it may print. Every outcome is a record, never a throw, because a machine without
 * Tailscale (or with a stopped daemon) is a supported setup and its callers decide what a
 * failure means.
 */
import { execFile } from 'node:child_process';

/** A local CLI call answers in milliseconds; 5 s covers a busy machine without hanging a caller. */
export const TAILSCALE_CALL_TIMEOUT_MS = 5_000;
/**
 * `tailscale status --json` grows with the tailnet (about 1 KiB a peer); 4 MiB is a tailnet of
 * thousands of devices. Past it the call fails rather than holding an unbounded buffer.
 */
export const TAILSCALE_OUTPUT_MAX_BYTES = 4 * 1024 * 1024;

export type TailscaleRun =
  | { readonly ok: true; readonly stdout: string }
  | {
      readonly ok: false;
      /** missing: no binary on PATH; failed: it ran and exited non-zero; timeout; too-large: output past the bound. */
      readonly kind: 'missing' | 'failed' | 'timeout' | 'too-large';
      readonly exitCode: number | null;
      /** What it printed on stderr (first 2 KiB), trimmed; empty when nothing. */
      readonly stderr: string;
    };

/** Runs `tailscale <args>`; resolves one TailscaleRun record. */
export type TailscaleRunner = (args: readonly string[]) => Promise<TailscaleRun>;

const STDERR_KEPT_CHARS = 2048;

/** A runner for the executable at `binary` (from config: found on PATH once); null binary answers `missing`. */
export function tailscaleRunner(binary: string | null, opts: { timeoutMs?: number; maxBytes?: number } = {}): TailscaleRunner {
  const timeoutMs = opts.timeoutMs ?? TAILSCALE_CALL_TIMEOUT_MS;
  const maxBuffer = opts.maxBytes ?? TAILSCALE_OUTPUT_MAX_BYTES;
  return (args) =>
    new Promise((resolve) => {
      if (binary === null) {
        resolve({ ok: false, kind: 'missing', exitCode: null, stderr: '' });
        return;
      }
      execFile(binary, [...args], { timeout: timeoutMs, maxBuffer, windowsHide: true, encoding: 'utf8' }, (error, stdout, stderr) => {
        if (error === null) {
          resolve({ ok: true, stdout });
          return;
        }
        const e = error as NodeJS.ErrnoException & { killed?: boolean; code?: string | number };
        const kind =
          e.code === 'ENOENT' || e.code === 'EACCES'
            ? 'missing'
            : e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER'
              ? 'too-large'
              : e.killed
                ? 'timeout'
                : 'failed';
        resolve({
          ok: false,
          kind,
          exitCode: typeof e.code === 'number' ? e.code : null,
          stderr: String(stderr ?? '')
            .slice(0, STDERR_KEPT_CHARS)
            .trim(),
        });
      });
    });
}
