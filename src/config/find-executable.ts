/**
 * Finds an executable on PATH the way a shell does, once, at start: the Hub runs `tailscale`
 * by the absolute path found here, so what it runs cannot change under it and tests put a fake
 * `tailscale` first on PATH to stand in for the daemon.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The first PATH entry holding an executable file called `name`; null when none does. */
export function findExecutable(name: string, pathValue: string | undefined): string | null {
  if (pathValue === undefined || pathValue === '') return null;
  for (const dir of pathValue.split(delimiter)) {
    // An empty or relative entry would name a file relative to wherever the Hub was started.
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/**
 * The command line of the macOS Tailscale app. The Mac App Store build puts nothing on PATH
 * (Tailscale's own advice is a shell alias, which a Hub cannot see), and the standalone build only
 * when "Install CLI" was chosen, so a Mac with Tailscale connected read as having none. It is run
 * by this path: a symlink to it does not work (tailscale/tailscale#11510).
 */
export const MACOS_TAILSCALE_APP_CLI = '/Applications/Tailscale.app/Contents/MacOS/Tailscale';

/** `tailscale` on PATH; on macOS, failing that, the app's own command line. */
export function findTailscale(pathValue: string | undefined, platform: NodeJS.Platform, appCli = MACOS_TAILSCALE_APP_CLI): string | null {
  return findExecutable('tailscale', pathValue) ?? (platform === 'darwin' && isExecutableFile(appCli) ? appCli : null);
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    // Absent or not executable here: keep looking, as a shell does.
    return false;
  }
}
