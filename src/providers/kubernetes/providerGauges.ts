/**
 * The gauges the Kubernetes provider adds to /metrics (MetricsProvider): remote pods it ignores
 * because they fail the ownership rule, reflected objects taken over remotely, and its Service reflection per host namespace (objects
 * reflected, names taken by others, a failing pass). docs/operating.md lists them.
 */
import type { ProviderGauge } from '../provider.js';
import type { NamespaceReflection } from './serviceReflection/serviceReflector.js';

/** What a scrape reads of Service reflection, per host namespace. */
export type ReflectionFigures = Pick<NamespaceReflection, 'namespace' | 'services' | 'endpointSlices' | 'taken' | 'lastError'>;

/** Objects and Events the ownership rule turned away since start. */
export interface OwnershipFigures {
  /** Reflected copies found without Tether's marks, per kind, one map per reflector. */
  readonly notOwned: readonly ReadonlyMap<string, number>[];
  /** Remote Events about a pod of this node's name without its uid. */
  readonly eventsDropped: number;
}

export function kubernetesGauges(
  ignoredRemotePods: number, reflection: readonly ReflectionFigures[], ownership: OwnershipFigures = { notOwned: [], eventsDropped: 0 },
): ProviderGauge[] {
  const notOwnedByKind = new Map<string, number>();
  for (const totals of ownership.notOwned) for (const [kind, n] of totals) notOwnedByKind.set(kind, (notOwnedByKind.get(kind) ?? 0) + n);
  return [
    {
      name: 'tether_remote_objects_not_owned_total',
      help: "Reflected remote objects found without Tether's marks (taken over in the remote cluster), left alone and reported once each.",
      labelNames: ['kind'],
      samples: [...notOwnedByKind].map(([kind, value]) => ({ labels: { kind }, value })),
    },
    {
      name: 'tether_remote_events_dropped_total',
      help: "Remote Events naming a pod of this node without that pod's uid (absent or another), not reflected to the host.",
      labelNames: [],
      samples: [{ labels: {}, value: ownership.eventsDropped }],
    },
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
