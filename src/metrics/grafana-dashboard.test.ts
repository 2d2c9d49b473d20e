import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { HubMetrics } from './hub-metrics.js';
import { NO_SOURCES } from './metrics-sources.fixture.js';

const DASHBOARD = resolve(import.meta.dirname, '../../../docs/grafana-dashboard.json');

type Dashboard = { panels: Array<{ title: string; targets: Array<{ expr: string; legendFormat?: string }> }> };
const dashboard = (): Dashboard => JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;

describe('docs/grafana-dashboard.json', () => {
  it('queries only metrics the Hub exports', async () => {
    const metrics = new HubMetrics(NO_SOURCES);
    const exported = new Set<string>();
    for (const [, name, type] of (await metrics.text()).body.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      exported.add(name!);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) exported.add(name! + suffix);
    }
    const used = dashboard().panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/\bcihub_[a-z_]+/g) ?? []));
    assert.ok(used.length > 10);
    assert.deepEqual(
      [...new Set(used)].filter((name) => !exported.has(name)),
      [],
    );
  });

  it('counts and times each request once across paired Hubs: at the Hub it entered, or split by direction', () => {
    // A forward is a row on the Hub it entered (outbound) and another on the peer that served it
    // (inbound); a panel summing both directions over several Hubs counts it twice.
    const perRequest = /\b(cihub_requests_total|cihub_first_byte_seconds_bucket|cihub_request_duration_seconds_bucket)\{([^}]*)\}/g;
    const unsplit = dashboard().panels.flatMap((p) =>
      p.targets.flatMap((t) =>
        [...t.expr.matchAll(perRequest)].filter((m) => !m[2]!.includes('direction="outbound"') && !/\bby \([^)]*\bdirection\b/.test(t.expr)).map(() => p.title),
      ),
    );
    assert.deepEqual(unsplit, []);
  });

  // node="local" and an engine's id name a different engine on every Hub, and a peer's name is
  // what one Hub sees of it; with the instance variable at All, a panel that sums over instances
  // drew two Hubs' own engines as one series.
  const PER_HUB = ['node', 'target', 'engine', 'backend', 'peer'];

  it('splits by Hub wherever it splits by node, engine or peer', () => {
    const mixed = dashboard().panels.flatMap((p) =>
      p.targets.flatMap((t) =>
        [...t.expr.matchAll(/\bby \(([^)]*)\)/g)]
          .map((m) => m[1]!.split(',').map((label) => label.trim()))
          .filter((labels) => labels.some((l) => PER_HUB.includes(l)) && !labels.includes('instance'))
          .map((labels) => `${p.title}: by (${labels.join(', ')})`),
      ),
    );
    assert.deepEqual(mixed, []);
  });

  it('names the Hub in every legend that names a node, engine or peer', () => {
    const unnamed = dashboard().panels.flatMap((p) =>
      p.targets
        .map((t) => t.legendFormat ?? '')
        .filter((legend) => PER_HUB.some((l) => legend.includes(`{{${l}}}`)) && !legend.includes('{{instance}}'))
        .map((legend) => `${p.title}: ${legend}`),
    );
    assert.deepEqual(unnamed, []);
  });
});
