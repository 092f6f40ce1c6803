/**
 * Providers: whatever runs a virtual node's pods. This is the folder to read to write one; the
 * contract in full, with its identity rules, is docs/providers.md.
 *
 * ## Plugging in (registration.ts, registry.ts)
 * A provider is one folder here that exports a `ProviderRegistration`: `{ type, schema, create }`
 * (the `type:` of a node's `provider:` block, the zod schema of that block, and
 * `create(config, context)` returning a `ProviderHandle`). `registry.ts` lists every registration
 * on one line each; the config schema and `tether run`'s factory are derived from that list, and
 * lint treats every folder here as a provider (one never imports another).
 *
 * ## The contract (provider.ts)
 * A provider is `PodProvider & NodeProvider` (virtual-kubelet's PodLifecycleHandler + PodNotifier
 * + NodeProvider, made async):
 * - pods: `createPod`, `updatePod`, `deletePod(pod)` (graceful, with the pod's grace period;
 *   called again with grace 0 to escalate), `getPod`, `getPodStatus`, `listPods`; every mutating
 *   call is idempotent and may be repeated;
 * - status: `notifyPods(callback)` is called once, before the first create; the provider then
 *   pushes every status change (`{type: 'status', pod}`) and every pod it lost without being asked
 *   (`{type: 'gone', ...}`), asynchronously, in order per pod, never from inside another call;
 * - node: `name`, `ping()` (a rejection is a failed health check: three in a row turn the node
 *   NotReady), `capacity()`, `nodeInfo()`.
 * Identity: Tether routes by the host pod's uid only. Every pod a provider returns or notifies
 * carries the host namespace and name, the host uid (`metadata.uid`, or the `tether.dev/host-uid`
 * annotation Tether put on the pod) and Tether's `tether.dev/` annotations as given; a
 * notification without the host uid reaches no pod (it is counted and logged: identityChecks.ts).
 * Ownership: a pod handed to a provider is the provider's; a pod it hands back is Tether's.
 * Tether wraps every provider in `withDeepCopies` (deepCopy.ts) once, where it hands it to the
 * node, so a provider does not wrap itself; node methods are not wrapped (return fresh objects).
 *
 * ## Optional capabilities
 * Separate interfaces, detected at run time: `LogsProvider` (`kubectl logs`), `StatsProvider`
 * (`/stats/summary`), `ExecProvider`, `AttachProvider`, `PortForwardProvider`, `WriteFencedProvider`
 * (HA: writes dropped while the node's lock is lost), `InspectableProvider` (the provider's own
 * read-only parts in the live actor tree under the node), `MetricsProvider` (its own gauges on
 * /metrics), `PodMarksLister` (podMarks.ts: a light `listPodMarks` for the orphan sweep). A
 * provider without status push is a `LegacyPodProvider`: wrap it in `PollingPodProvider`
 * (pollingProvider.ts), which polls `getPodStatus` and synthesizes notifications.
 *
 * ## Errors (errors.ts)
 * Reject with `notFound(...)` (Tether treats it as "already gone"), `invalidInput(...)` (the pod
 * can never run as specified: annotated and not retried until the spec changes) or
 * `transient(...)` (retried with backoff); API failures are classified once, where they are met
 * (the adapters classify by status code and error code). An unclassified error is a provider bug:
 * the calling pod actor crashes and its supervisor restarts it with backoff. Callers branch on
 * `providerKindOf(err)` (lib/errorKind.ts `kindOf`, walking `cause`), never on message text.
 * A create failure may carry a precise Event reason (`transient(msg, { reason:
 * 'MandatorySecretNotFound' })`, virtual-kubelet's vocabulary where it has one): the pod gets a
 * Warning Event with it beside Tether's own `ProviderCreateFailed` / `ProviderRejected`.
 *
 * ## Lifecycle (src/lib/lifecycle.ts)
 * Concrete providers have the one lifecycle of Tether's long-lived parts: `ready` (a Kubernetes
 * provider: its remote informer has listed), `done`, and an idempotent `stop({ deadlineMs })`
 * that leaves running pods where they are.
 *
 * ## An example, compiled
 * examples/providers/echo/ is a whole provider and its registration, type-checked with the rest
 * and run through the conformance suite (test/providers/conformance/), which every provider here
 * runs too: a new provider adds a runner there.
 *
 * In this folder: `simulated/` (an in-memory node for demos, tests and benchmarks) and
 * `kubernetes/` (offloading to another cluster).
 */
export * from './provider.js';
export * from './errors.js';
export { deepCopy, deepCopyPod, deepCopyPodStatus, withDeepCopies } from './deepCopy.js';
export { PollingPodProvider, type PollingOptions } from './pollingProvider.js';
export { ProviderSetupError, handleOf, type ProviderCreationContext, type ProviderHandle, type ProviderRegistration, type PodEventSink, type ContainerEventRef } from './registration.js';
export { SimulatedProvider, DEFAULT_RESOURCES, type SimulatedProviderOptions } from './simulated/simulatedProvider.js';
export { SimulatedFaults, type SimulatedFaultOptions } from './simulated/faults.js';
