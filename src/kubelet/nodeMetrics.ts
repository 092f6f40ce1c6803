/**
 * The kubelet port's own Prometheus endpoints for one virtual node, in prom-client registries
 * made for each scrape (so two nodes, or two scrapes, never share a series):
 *   /metrics         the kubelet's families Tether can state truthfully (pkg/kubelet/metrics,
 *                    names and help as kubelet v1.36.3): `kubelet_node_name{node}` 1,
 *                    `kubelet_running_pods`, `kubelet_running_containers{container_state}`; then
 *                    Tether's own figures for this node (`tether_*` series labelled with it),
 *                    given by the caller as exposition text;
 *   /metrics/probes  `prober_probe_total`, the kubelet's prober counter. Tether runs no probes (a
 *                    provider's backend does, where the containers run), so the family is
 *                    declared with no samples: valid, and empty.
 * The counts come from the provider's pods at scrape time. A pod is running when its phase is
 * Running (the kubelet counts running sandboxes, which a provider does not expose); a container's
 * state is running, exited (terminated now, or waiting after it has terminated before, as a
 * container in back-off) or, waiting never having run, not counted: no container exists yet.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import type { Pod } from '../adapters/kubernetes/model.js';

export const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

type ContainerState = 'running' | 'exited';

function stateOf(status: NonNullable<NonNullable<Pod['status']>['containerStatuses']>[number]): ContainerState | undefined {
  if (status.state?.running) return 'running';
  if (status.state?.terminated || status.lastState?.terminated) return 'exited';
  return undefined;
}

/** The kubelet's running pod and container counts over `pods`. */
export function runningCounts(pods: readonly Pod[]): { readonly pods: number; readonly containers: ReadonlyMap<ContainerState, number> } {
  const containers = new Map<ContainerState, number>();
  let running = 0;
  for (const pod of pods) {
    if (pod.status?.phase === 'Running') running++;
    const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? []), ...(pod.status?.ephemeralContainerStatuses ?? [])];
    for (const status of statuses) {
      const state = stateOf(status);
      if (state) containers.set(state, (containers.get(state) ?? 0) + 1);
    }
  }
  return { pods: running, containers };
}

/** `/metrics` of node `nodeName`: the kubelet's families over `pods`, then `extra` (Tether's figures for the node). */
export async function kubeletMetricsText(nodeName: string, pods: readonly Pod[], extra = ''): Promise<string> {
  const registry = new Registry();
  const registers = [registry];
  new Gauge({ name: 'kubelet_node_name', help: "The node's name. The count is always 1.", labelNames: ['node'], registers }).set({ node: nodeName }, 1);
  const counts = runningCounts(pods);
  new Gauge({ name: 'kubelet_running_pods', help: 'Number of pods that have a running pod sandbox', registers }).set(counts.pods);
  const containers = new Gauge({ name: 'kubelet_running_containers', help: 'Number of containers currently running', labelNames: ['container_state'], registers });
  for (const [state, count] of counts.containers) containers.set({ container_state: state }, count);
  const own = await registry.metrics();
  return extra === '' ? own : `${own}${own.endsWith('\n') ? '' : '\n'}${extra}`;
}

/** `/metrics/probes`: the prober's counter, declared, with a sample for each probe result Tether has (none). */
export async function probeMetricsText(): Promise<string> {
  const registry = new Registry();
  new Counter({
    name: 'prober_probe_total',
    help: 'Cumulative number of a liveness, readiness or startup probe for a container by result.',
    labelNames: ['probe_type', 'result', 'container', 'pod', 'namespace', 'pod_uid'],
    registers: [registry],
  });
  return registry.metrics();
}
