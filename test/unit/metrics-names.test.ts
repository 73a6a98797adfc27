/**
 * The alert rules (ops/prometheus/alerts.yml) and the dashboard (ops/grafana/dashboard.json) name
 * only series this process exports (lib/metrics.ts), so renaming a metric cannot leave them behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../lib/config';
import { metricsRegistry } from '../../lib/metrics';

/** Names in PromQL that are series (ours, Node's and the process's); functions, labels and keywords are not. */
const SERIES = /\b(?:commerce|nodejs|process)_[a-z0-9_]+\b/g;

async function exportedSeries(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const metric of await metricsRegistry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) names.add(`${metric.name}${suffix}`);
  }
  return names;
}

function alertExpressions(): string[] {
  const text = fs.readFileSync(path.join(PROJECT_ROOT, 'ops/prometheus/alerts.yml'), 'utf8');
  // `expr: …` on one line, or a folded block (`expr: >`) whose lines are indented below it.
  const expressions: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const match = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!match) return;
    if (match[2] !== '>' && match[2] !== '|') return void expressions.push(match[2]!);
    const block: string[] = [];
    for (let j = i + 1; j < lines.length && (lines[j]!.trim() === '' || lines[j]!.search(/\S/) > match[1]!.length); j += 1)
      block.push(lines[j]!);
    expressions.push(block.join('\n'));
  });
  return expressions;
}

function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'ops/grafana/dashboard.json'), 'utf8')) as {
    panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
  };
  return dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
}

describe('metric names used by the alert rules and the dashboard', () => {
  it('the alert rules cover outbox age, dead letters, index lag, the error ratio and readiness', () => {
    const all = alertExpressions().join('\n');
    expect(alertExpressions()).to.have.length.of.at.least(5);
    for (const name of [
      'commerce_outbox_oldest_age_seconds',
      'commerce_webhook_deliveries_total',
      'commerce_outbox_delivery_lag_seconds_bucket',
      'commerce_http_request_duration_seconds_count',
      'commerce_ready',
    ])
      expect(all, name).to.include(name);
  });

  for (const [file, expressions] of [
    ['ops/prometheus/alerts.yml', alertExpressions],
    ['ops/grafana/dashboard.json', dashboardExpressions],
  ] as const) {
    it(`every series named in ${file} is exported`, async () => {
      const exported = await exportedSeries();
      const used = new Set(expressions().flatMap((expr) => expr.match(SERIES) ?? []));
      expect(used.size, file).to.be.greaterThan(5);
      const missing = [...used].filter((name) => !exported.has(name));
      expect(missing, `${file} names series nobody exports`).to.deep.equal([]);
    });
  }

  it('the dashboard shows every commerce_ metric at least once', async () => {
    const used = dashboardExpressions().join('\n');
    const ours = (await metricsRegistry.getMetricsAsJSON())
      .map((m) => m.name)
      .filter((name) => name.startsWith('commerce_') && name !== 'commerce_metrics_collect_failures_total');
    for (const name of ours) expect(used, name).to.include(name);
  });
});
