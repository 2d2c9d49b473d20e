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
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Absent or not executable here: keep looking, as a shell does.
    }
  }
  return null;
}
