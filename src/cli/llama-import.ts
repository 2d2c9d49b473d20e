/**
 * The real llama.cpp engine behind `cihub dev llama` and `cihub demo --real`. node-llama-cpp and
 * its prebuilt binary are development dependencies: a Hub never loads them, so a Hub installs on
 * any platform, and only these two commands import them, on demand. When they are missing the
 * command says in one sentence how to get them instead of printing a resolver stack.
 */
import { CliError } from './hub-client.js';

export const LLAMA_MISSING =
  'The real llama.cpp engine needs node-llama-cpp and its prebuilt binary for this platform, which are development dependencies: run `npm install` in a clone of the cihub repository (not a global install) and try again.';

/** True for the resolver's error when node-llama-cpp (or its platform binary) is not installed. */
export function isLlamaMissing(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e === null || typeof e !== 'object' || typeof e.message !== 'string') return false;
  const notFound = e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND';
  // getLlama({ build: 'never' }) throws NoBinaryFoundError when no prebuilt binary fits this machine.
  const noBinary = (e as { constructor?: { name?: unknown } }).constructor?.name === 'NoBinaryFoundError' || e.message.startsWith('No prebuilt binaries found');
  return (notFound && e.message.includes('node-llama-cpp')) || noBinary;
}

/** Runs something that imports and starts node-llama-cpp, turning its absence into one sentence. */
export async function withLlama<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isLlamaMissing(err)) throw new CliError(LLAMA_MISSING);
    throw err;
  }
}
