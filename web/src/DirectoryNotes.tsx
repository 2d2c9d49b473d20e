import type { DirectoryReport } from './types';

/** What each directory discovery could not ask, in the Hub's own words: why a scan may be short. */
export function DirectoryNotes({ directories }: { directories: readonly DirectoryReport[] }) {
  const notOk = directories.filter((d) => d.state !== 'ok' && d.detail !== null);
  if (notOk.length === 0) return null;
  return (
    <ul className="plain small">
      {notOk.map((d) => (
        <li key={d.directory}>
          {DIRECTORY_NAMES[d.directory] ?? d.directory}: {d.detail}
        </li>
      ))}
    </ul>
  );
}

const DIRECTORY_NAMES: Record<string, string> = {
  'tailscale-daemon': 'Tailscale on this machine',
  'tailscale-admin-api': 'Tailscale Admin API',
  portal: 'Portal directory',
};
