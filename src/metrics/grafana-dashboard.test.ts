import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { HubMetrics } from './hub-metrics.js';
import { NO_SOURCES } from './metrics-sources.fixture.js';

const DASHBOARD = resolve(import.meta.dirname, '../../../docs/grafana-dashboard.json');

describe('docs/grafana-dashboard.json', () => {
  it('queries only metrics the Hub exports', async () => {
    const metrics = new HubMetrics(NO_SOURCES);
    const exported = new Set<string>();
    for (const [, name, type] of (await metrics.text()).body.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      exported.add(name!);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) exported.add(name! + suffix);
    }
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
    const used = dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/\bcihub_[a-z_]+/g) ?? []));
    assert.ok(used.length > 10);
    assert.deepEqual(
      [...new Set(used)].filter((name) => !exported.has(name)),
      [],
    );
  });
});
