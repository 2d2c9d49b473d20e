import type { DirectoryReport } from './types';

/**
 * What each directory discovery could not ask, in the Hub's own words: why a scan may be short.
 * `credentialHintShown`: the page already names the OAuth variables beside the list, so the Admin
 * API's own "not configured" note would say it a second time.
 */
export function DirectoryNotes({ directories, credentialHintShown = false }: { directories: readonly DirectoryReport[]; credentialHintShown?: boolean }) {
  const notOk = directories.filter(
    (d) => d.state !== 'ok' && d.detail !== null && !(credentialHintShown && d.directory === 'tailscale-admin-api' && d.state === 'not-configured'),
  );
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
