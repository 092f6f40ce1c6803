/**
 * The identity rule at the provider boundary, made visible. Tether routes a provider's
 * notification to a pod's actor by the host pod's uid only (the `tether.dev/host-uid` annotation
 * it gave the pod, else the pod's own `metadata.uid`; a `gone` by its `uid`), never by name, so a
 * notification without one reaches no pod: the pod's status never reaches the host. Such a
 * notification is a provider bug (the contract says the host uid and Tether's annotations
 * round-trip). It is still dropped, but counted (the gauge
 * `tether_provider_notifications_without_host_uid_total{node,type}`) and logged once per pod.
 */
import type { Logger } from '../adapters/logger.js';
import { podKey } from '../lib/podIdentity.js';
import { hostUidMark } from './podMarks.js';
import {
  isMetricsProvider, type PodNotification, type PodNotificationCallback, type Provider, type ProviderGauge,
} from './provider.js';

/** At most this many pods are remembered as logged; past it, notifications are counted but not logged. */
export const MAX_LOGGED_PODS = 1_000;

/** The host uid a notification routes by, or undefined when it carries none. */
export function routingUid(notification: PodNotification): string | undefined {
  if (notification.type === 'gone') return notification.uid || undefined;
  const metadata = notification.pod.metadata;
  return metadata?.annotations?.[hostUidMark] || metadata?.uid || undefined;
}

class MissingUidLedger {
  readonly counts = { status: 0, gone: 0 };
  private readonly logged = new Set<string>();

  constructor(private readonly logger: Logger, private readonly provider: string) {}

  check(notification: PodNotification): void {
    if (routingUid(notification) !== undefined) return;
    this.counts[notification.type] += 1;
    const key = notification.type === 'gone'
      ? podKey(notification.namespace, notification.name)
      : podKey(notification.pod.metadata?.namespace ?? 'default', notification.pod.metadata?.name ?? '');
    if (this.logged.has(key) || this.logged.size >= MAX_LOGGED_PODS) return;
    this.logged.add(key);
    this.logger.warn('provider notification without the host uid dropped: no pod can receive it', {
      provider: this.provider, pod: key, notification: notification.type,
      rule: `a provider returns the ${hostUidMark} annotation and metadata.uid Tether gave the pod`,
    });
  }

  gauge(): ProviderGauge {
    return {
      name: 'tether_provider_notifications_without_host_uid_total',
      help: 'Provider notifications dropped because they carry no host uid (a provider bug: the host uid must round-trip), by type.',
      labelNames: ['type'],
      samples: [{ labels: { type: 'status' }, value: this.counts.status }, { labels: { type: 'gone' }, value: this.counts.gone }],
    };
  }
}

/**
 * Wraps a provider so that its notifications without a host uid are counted and logged once per
 * pod; they pass on unchanged. Everything else passes through, bound to the provider; the gauge
 * joins the provider's own (MetricsProvider).
 */
export function withIdentityChecks<P extends Provider>(provider: P, logger: Logger): P {
  const ledger = new MissingUidLedger(logger, provider.name);
  const notifyPods = (callback: PodNotificationCallback): void =>
    provider.notifyPods((notification) => {
      ledger.check(notification);
      callback(notification);
    });
  const providerMetrics = (): readonly ProviderGauge[] =>
    [...(isMetricsProvider(provider) ? provider.providerMetrics() : []), ledger.gauge()];
  const bound = new Map<PropertyKey, unknown>([['notifyPods', notifyPods], ['providerMetrics', providerMetrics]]);
  return new Proxy(provider, {
    get(target, prop) {
      const own = bound.get(prop);
      if (own !== undefined) return own;
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      bound.set(prop, method);
      return method;
    },
  });
}
