/**
 * localStorage, for a browser that may refuse it: a hardened profile throws on every touch. Then
 * values live in this page's memory until a reload, so the dashboard still works, only forgets
 * more (the session's token, a dismissed card, a finished first run).
 */
const memory = new Map<string, string>();

export function readStored(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return memory.get(key) ?? null;
  }
}

export function writeStored(key: string, value: string): void {
  memory.set(key, value);
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Kept in memory only.
  }
}

export function removeStored(key: string): void {
  memory.delete(key);
  try {
    window.localStorage.removeItem(key);
  } catch {
    // Nothing was stored there.
  }
}
