/**
 * The gauges the Kubernetes provider adds to /metrics (MetricsProvider): remote pods it ignores
 * because they fail the ownership rule, and its Service reflection per host namespace (objects
 * reflected, names taken by others, a failing pass). docs/operating.md lists them.
 */
import type { ProviderGauge } from '../provider.js';
import type { NamespaceReflection } from './serviceReflection/serviceReflector.js';

/** What a scrape reads of Service reflection, per host namespace. */
export type ReflectionFigures = Pick<NamespaceReflection, 'namespace' | 'services' | 'endpointSlices' | 'taken' | 'lastError'>;

export function kubernetesGauges(ignoredRemotePods: number, reflection: readonly ReflectionFigures[]): ProviderGauge[] {
  return [
    {
      name: 'tether_remote_pods_ignored_total',
      help: "Remote pods carrying Tether's marks that are not Tether's (another namespace, host cluster or node), ignored.",
      labelNames: [],
      samples: [{ labels: {}, value: ignoredRemotePods }],
    },
    {
      name: 'tether_reflected_objects',
      help: 'Host Services and EndpointSlices reflected into the remote namespace, per host namespace.',
      labelNames: ['namespace', 'kind'],
      samples: reflection.flatMap((f) => [
        { labels: { namespace: f.namespace, kind: 'Service' }, value: f.services },
        { labels: { namespace: f.namespace, kind: 'EndpointSlice' }, value: f.endpointSlices },
      ]),
    },
    {
      name: 'tether_reflection_names_taken',
      help: 'Names Service reflection cannot use: a remote object Tether did not create holds them.',
      labelNames: ['namespace'],
      samples: reflection.map((f) => ({ labels: { namespace: f.namespace }, value: f.taken.length })),
    },
    {
      name: 'tether_reflection_failing',
      help: '1 while the last Service reflection pass of a namespace failed (it is retried with backoff).',
      labelNames: ['namespace'],
      samples: reflection.map((f) => ({ labels: { namespace: f.namespace }, value: f.lastError === undefined ? 0 : 1 })),
    },
  ];
}
