/**
 * Optional: gauges the provider adds to `/metrics` (the Kubernetes provider's Service reflection
 * and ignored remote pods). Read at every scrape: cheap, synchronous, side-effect free. The
 * families (name, help, label names) are read once, when the node's provider is observed, and
 * must be the same on every call; the samples may change. Tether adds the `node` label.
 */
export interface MetricsProvider {
  providerMetrics(): readonly ProviderGauge[];
}

export interface ProviderGauge {
  /** A Prometheus metric name, `tether_` first; never one of Tether's own (docs/operating.md). */
  readonly name: string;
  readonly help: string;
  /** The labels of each sample, besides `node`. */
  readonly labelNames: readonly string[];
  readonly samples: readonly ProviderSample[];
}

export interface ProviderSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export function isMetricsProvider<P extends object>(provider: P): provider is P & MetricsProvider {
  return typeof (provider as Partial<MetricsProvider>).providerMetrics === 'function';
}
