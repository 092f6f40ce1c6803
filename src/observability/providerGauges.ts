/**
 * The gauges providers contribute to /metrics through the contract (MetricsProvider): one
 * prom-client Gauge per family name, registered when the first provider declaring it is
 * observed, filled at scrape time from every observed provider with its node's label. A family
 * that cannot be registered (an invalid name, one of Tether's own, or a name another provider
 * declared with other labels) is left out, never allowed to break a scrape.
 */
import { Gauge, type Registry } from 'prom-client';
import { isMetricsProvider, type MetricsProvider, type ProviderGauge } from '../providers/provider.js';

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface Family {
  readonly labelNames: readonly string[];
  /** The nodes whose providers declared this family. */
  readonly nodes: Set<string>;
}

export class ProviderGauges {
  private readonly sources = new Map<string, MetricsProvider>();
  private readonly families = new Map<string, Family>();

  constructor(private readonly registry: Registry) {}

  observe(node: string, provider: object): void {
    if (!isMetricsProvider(provider)) return;
    this.sources.set(node, provider);
    for (const gauge of provider.providerMetrics()) this.declare(node, gauge);
  }

  private declare(node: string, gauge: ProviderGauge): void {
    const known = this.families.get(gauge.name);
    if (known !== undefined) {
      if (sameLabels(known.labelNames, gauge.labelNames)) known.nodes.add(node);
      return;
    }
    const labelNames = ['node', ...gauge.labelNames];
    const valid = METRIC_NAME.test(gauge.name) && gauge.labelNames.every((l) => LABEL_NAME.test(l) && l !== 'node');
    if (!valid || this.registry.getSingleMetric(gauge.name) !== undefined) return;
    const family: Family = { labelNames: [...gauge.labelNames], nodes: new Set([node]) };
    this.families.set(gauge.name, family);
    const sources = this.sources;
    const name = gauge.name;
    new Gauge({ name, help: gauge.help, labelNames, registers: [this.registry], collect() {
      this.reset();
      for (const member of family.nodes) {
        const samples = sources.get(member)?.providerMetrics().find((g) => g.name === name)?.samples ?? [];
        for (const sample of samples) {
          const labels = Object.fromEntries(family.labelNames.map((l) => [l, sample.labels[l] ?? '']));
          this.set({ node: member, ...labels }, sample.value);
        }
      }
    } });
  }
}

function sameLabels(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((label, i) => label === b[i]);
}
