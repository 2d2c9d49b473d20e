import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { HubMetrics } from './hub-metrics.js';
import { NO_SOURCES } from './metrics-sources.fixture.js';

const DASHBOARD = resolve(import.meta.dirname, '../../../docs/grafana-dashboard.json');

type Dashboard = { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
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
});
