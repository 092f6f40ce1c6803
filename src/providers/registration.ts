/**
 * How a provider plugs in: its folder exports one `ProviderRegistration` (the `type` that names
 * it in a node's `provider:` block, the zod `schema` of that block, and `create`), and
 * `registry.ts` lists it on one line. The config loader validates a node's block with the schema
 * of its `type`; `tether run` calls `create` with the validated block and a creation context.
 * Nothing outside the provider's folder knows its options.
 */
import type { ClusterClient } from '../adapters/kubernetes/clusterClient.js';
import type { EventRecorderClient } from '../adapters/kubernetes/eventRecorderClient.js';
import type { z } from 'zod';
import type { KubeconfigSource } from '../adapters/kubernetes/kubeconfig.js';
import type { Logger } from '../adapters/logger.js';
import type { Lifecycle } from '../lib/lifecycle.js';
import type { NamedPod } from '../lib/podIdentity.js';
import type { Provider } from './provider.js';

/** A running provider and its lifecycle; stopped after the agent (its pods keep running where they are). */
export interface ProviderHandle extends Lifecycle {
  readonly provider: Provider;
}

/**
 * A kubelet Event about one container of the pod, as a provider that plays the kubelet records it
 * (the simulated node's `Unhealthy` and `Killing` of its probes): `fieldPath` names the container
 * as the kubelet does (`spec.containers{app}`), `action` is the kubelet's (`Kill`, `Probe`...).
 * Such an Event is reported from the kubelet on the node, not from Tether.
 */
export interface ContainerEventRef {
  readonly fieldPath: string;
  readonly action: string;
}

/**
 * Where a provider reports an Event about one of the node's host pods: with `container`, a
 * kubelet Event about that container (ContainerEventRef); without, one of the provider's own
 * (the Kubernetes provider's forwarded remote Events, action `Offload`).
 */
export type PodEventSink = (
  pod: NamedPod,
  type: 'Normal' | 'Warning',
  reason: string,
  note: string,
  container?: ContainerEventRef,
) => void;

/** What Tether gives a provider to build it with, beside its own config block. */
export interface ProviderCreationContext {
  /** The virtual node the provider serves. */
  readonly nodeName: string;
  /** The node's address (the simulated provider reports it as its pods' hostIP). */
  readonly internalIP: string;
  /** The host cluster, whose pods the node runs (for a Secret, a ConfigMap, the cluster's id). */
  readonly host: KubeconfigSource;
  /**
   * The node's one host connection, shared with the agent (one rate limiter, pool and write fence
   * per node): a provider calls the host cluster through it, and never stops it. `tether run`
   * always passes one; without it (a test, a tool) a provider may open its own from `host`.
   */
  readonly hostClient?: ClusterClient;
  /**
   * The node's one host EventRecorder, over `hostClient`, shared with the agent (one series cache
   * and one fence per node); a provider writes Events through it and never stops it.
   */
  readonly hostEvents?: EventRecorderClient;
  /** Bound to the node already. */
  readonly logger: Logger;
  /**
   * Under leader election: build the provider a standby, its writes fenced from construction and
   * nothing of it driving the node until the agent opens it on taking the node's lock
   * (WriteFencedProvider). Default false: one replica, open from the start.
   */
  readonly fenced?: boolean;
  /** Events about the node's host pods go to the node's host EventRecorder (rate-limited, fenced under HA). */
  readonly podEvents?: PodEventSink;
}

/** The schema of a provider's config block: a strict object whose `type` is the provider's literal. */
export type ProviderConfigSchema = z.ZodObject<{ type: z.ZodLiteral<string> } & z.core.$ZodShape, z.core.$ZodObjectConfig>;

export interface ProviderRegistration<S extends ProviderConfigSchema = ProviderConfigSchema> {
  /** The `type:` of the node's `provider:` block; also the provider's `name`. */
  readonly type: z.infer<S>['type'];
  /** Validates the block; each message says what is expected (src/lib/schemaPrimitives.ts). */
  readonly schema: S;
  /**
   * Builds the provider from its validated block. Rejects with `ProviderSetupError` for a
   * configuration the process cannot act on (a missing Secret, say: `tether run` exits 2).
   * Returns the provider as it is: Tether wraps it (deep copies, metrics) itself.
   */
  create(config: z.infer<S>, context: ProviderCreationContext): Promise<ProviderHandle>;
  /**
   * Optional: what `create` would refuse or warn about, read from the clusters without starting
   * anything (`tether validate --clusters`), one line each, prefixed `refuse: ` or `warn: `.
   */
  check?(config: z.infer<S>, context: ProviderCreationContext): Promise<string[]>;
}

/** A configuration the process cannot act on (a Secret that is missing, say): exit code 2. */
export class ProviderSetupError extends Error {
  override readonly name = 'ProviderSetupError';
}

/** The handle of a provider that is its own lifecycle. */
export function handleOf(provider: Provider & Lifecycle): ProviderHandle {
  return { provider, ready: provider.ready, done: provider.done, stop: (options) => provider.stop(options) };
}
