/** The page reads status this often (the guide: "The requesting Hub's page refreshes every 15 seconds"). */
export const POOL_PAGE_POLL_MS = 15_000;
/** The Tailscale report runs Tailscale's CLI on the host at every read, so it is read far less often than status. */
export const TAILSCALE_REPORT_POLL_MS = 60_000;
