/**
 * `cihub pool status` as text: the switches, this node, its engines and what it can serve.
 * Rendered from the status document only; the sentences live here, not in the Hub.
 */
import type { PoolStatus } from '../../status/pool-status.js';
import type { RoutingLogSummary } from '../../routing-log/entry.js';
import { describeFailedBreakdown } from './failed-breakdown.js';

const REASON_TEXT: Readonly<Record<PoolStatus['reason'], string>> = {
  active: 'routing across the pool',
  no_peers: 'on, no peer connected: serving from this Hub\'s own engines',
  partially_disabled: 'partly switched off',
  disabled_by_env: 'off: HUB_POOL_USER_DISABLED=true in this Hub\'s environment (the setting cannot override it)',
  disabled_by_setting: 'off: poolEnabled is false (turn on with `cihub pool enable`)',
};

function direction(name: string, d: PoolStatus['directions']['outbound']): string {
  if (d.enabled) return `${name} on`;
  return `${name} off (${d.disabledBy === 'env' ? 'by the environment' : 'by the setting'})`;
}

export function renderPoolStatus(status: PoolStatus, summary: RoutingLogSummary | null): string {
  const lines: string[] = [];
  lines.push(`Hub Pool: ${REASON_TEXT[status.reason]}`);
  lines.push(`  ${direction('sending work to peers', status.directions.outbound)} · ${direction('serving peers', status.directions.inbound)}`);
  lines.push('');
  lines.push('This node');
  lines.push(`  name            ${status.localNode.nodeFqdn ?? '(no tailnet name)'}`);
  lines.push(`  queue depth     ${status.localNode.queueDepth}`);
  const ceiling = status.localNode.maxPromptTokens;
  lines.push(`  prompt ceiling  ${ceiling === null ? 'none' : `${ceiling} tokens (set by ${status.localNode.maxPromptTokensSetBy})`}`);
  lines.push('');
  lines.push('Engines');
  if (status.localNode.backends.length === 0) lines.push('  (none configured)');
  const rows = status.localNode.backends.map((b) => [
    b.id,
    b.url,
    b.healthy ? 'healthy' : b.running ? 'unhealthy' : 'down',
    b.probedMsAgo === null ? 'not probed yet' : `probed ${Math.round(b.probedMsAgo / 1000)}s ago`,
    `${b.inFlight} in flight`,
    b.error ?? `${b.models.length} models`,
  ]);
  lines.push(...table(rows).map((l) => `  ${l}`));
  lines.push('');
  lines.push('What the pool can serve');
  const models = [...new Set(status.localNode.backends.filter((b) => b.healthy).flatMap((b) => b.models))].sort();
  if (models.length === 0) lines.push('  (nothing: no healthy engine lists a model)');
  const served = models.map((model) => [model, `local (${status.localNode.backends.filter((b) => b.healthy && b.models.includes(model)).map((b) => b.id).join(', ')})`]);
  lines.push(...table(served).map((l) => `  ${l}`));
  lines.push('');
  lines.push(`Peers: ${status.peers.length === 0 ? 'none paired' : status.peers.length}`);
  if (summary !== null) {
    lines.push('');
    lines.push(`Recent routing: ${summary.counts.served} served · ${describeFailedBreakdown(summary.counts)} · ${summary.counts.failedOver} failed over`);
  }
  return `${lines.join('\n')}\n`;
}

/** Left-aligned columns separated by two spaces. */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  '));
}
