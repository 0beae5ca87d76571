import { readFileSync } from 'node:fs';
import { parser } from '@prometheus-io/lezer-promql';
import { register } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import '@qw/platform';
import { nodeGauges as provisioningGauges } from '../../services/provisioning/src/nodes/node-metrics.ts';
import { nodeGauges as telemetryGauges } from '../../services/telemetry/src/samples/node-metrics.ts';

/**
 * deploy/prometheus/alerts.yml and deploy/grafana/quietwire.json ask only for what the services
 * export: every expression parses with Prometheus's own PromQL grammar, every metric it names is
 * one the services register (the platform's bus and sampled figures, provisioning's and
 * telemetry's node gauges), and every label it groups or matches on is one of those metrics'.
 * metrics.test.ts (telemetry) shows a running service serving these names on /metrics.
 */
const exported = new Map<string, string[]>();
for (const metric of register.getMetricsAsArray()) {
  const { name, labelNames = [] } = metric as unknown as { name: string; labelNames?: string[] };
  exported.set(name, labelNames);
  if ((metric as { constructor: { name: string } }).constructor.name === 'Histogram')
    for (const suffix of ['_bucket', '_count', '_sum']) exported.set(`${name}${suffix}`, [...labelNames, 'le']);
}
for (const gauge of [...provisioningGauges(undefined as never), ...telemetryGauges(undefined as never)])
  exported.set(gauge.name, gauge.labelNames);

/** The metric names and grouping labels of a PromQL expression, or the first syntax error. */
function readExpression(expr: string): { metrics: string[]; labels: string[]; error?: string } {
  const metrics: string[] = [];
  const labels: string[] = [];
  let error: string | undefined;
  parser.parse(expr).iterate({
    enter: (node) => {
      const text = expr.slice(node.from, node.to);
      if (node.type.isError) error ??= `syntax error at ${node.from}: "${expr.slice(node.from, node.from + 20)}"`;
      else if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') metrics.push(text);
      else if (node.name === 'LabelName' && node.node.parent?.name === 'GroupingLabels') labels.push(text);
    },
  });
  return { metrics, labels, ...(error ? { error } : {}) };
}

function problemsOf(where: string, expr: string): string[] {
  const { metrics, labels, error } = readExpression(expr);
  if (error) return [`${where}: ${error}`];
  const problems: string[] = [];
  if (metrics.length === 0) problems.push(`${where}: names no metric`);
  for (const metric of metrics) if (!exported.has(metric)) problems.push(`${where}: ${metric} is not exported`);
  const known = new Set(metrics.flatMap((metric) => exported.get(metric) ?? []));
  for (const label of labels) if (!known.has(label)) problems.push(`${where}: no metric of it has the label ${label}`);
  return problems;
}

type Rule = { alert: string; expr: string; for?: string; labels?: Record<string, string> };
const alerts = parse(readFileSync(new URL('../prometheus/alerts.yml', import.meta.url), 'utf8')) as {
  groups: Array<{ name: string; rules: Rule[] }>;
};
const rules = alerts.groups.flatMap((group) => group.rules);

describe('deploy/prometheus/alerts.yml', () => {
  it('has the alerts docs/operations.md describes, each with a severity and a summary', () => {
    const names = rules.map((rule) => rule.alert);
    for (const wanted of ['ConsumerStuck', 'OutboxGrowing', 'NodeSilent', 'DeadLetters'])
      expect(names).toContain(wanted);
    const operations = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    for (const rule of rules) {
      expect(rule.labels?.severity, rule.alert).toMatch(/^(page|ticket)$/);
      expect(operations, `docs/operations.md explains ${rule.alert}`).toContain(`**${rule.alert}**`);
    }
  });

  it('asks only for metrics and labels the services export', () => {
    expect(rules.flatMap((rule) => problemsOf(rule.alert, rule.expr))).toEqual([]);
  });

  it('would catch an expression that names a metric nobody exports, or a label it does not have', () => {
    expect(problemsOf('typo', 'max by (consumer) (qw_consumer_pendin) > 0')).toEqual([
      'typo: qw_consumer_pendin is not exported',
      'typo: no metric of it has the label consumer',
    ]);
    expect(problemsOf('label', 'max by (node) (qw_outbox_depth) > 0')).toEqual([
      'label: no metric of it has the label node',
    ]);
    expect(problemsOf('syntax', 'max by (schema (qw_outbox_depth)')[0]).toMatch(/syntax error/);
  });
});

describe('deploy/grafana/quietwire.json', () => {
  const dashboard = JSON.parse(readFileSync(new URL('../grafana/quietwire.json', import.meta.url), 'utf8')) as {
    uid: string;
    panels: Array<{ id: number; type: string; title: string; targets?: Array<{ expr: string }> }>;
  };

  it('charts only what the services export, and every figure the alerts watch', () => {
    const targets = dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ where: panel.title, expr: target.expr })),
    );
    expect(targets.length).toBeGreaterThan(10);
    expect(targets.flatMap(({ where, expr }) => problemsOf(where, expr))).toEqual([]);
    const charted = new Set(targets.flatMap(({ expr }) => readExpression(expr).metrics));
    const alerted = new Set(rules.flatMap((rule) => readExpression(rule.expr).metrics));
    for (const metric of alerted) expect(charted, metric).toContain(metric);
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
