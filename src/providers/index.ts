/**
 * Providers: whatever runs a virtual node's pods. This is the folder to read to write one.
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
 *   NotReady), `nodeResources()`, `nodeInfo()`.
 * Ownership: a pod handed to a provider is the provider's; a pod it hands back is Tether's.
 * `withDeepCopies` (deepCopy.ts) enforces this for providers that cannot promise it.
 *
 * ## Optional capabilities
 * Separate interfaces, detected at run time: `LogsProvider` (`kubectl logs`), `StatsProvider`
 * (`/stats/summary`), `ExecProvider`, `AttachProvider`, `PortForwardProvider`, `WriteFencedProvider`
 * (HA: writes dropped while the node's lock is lost), `InspectableProvider` (read-only parts shown
 * in the live actor tree under the node), `PodMarksLister` (podMarks.ts: a light `listPodMarks`
 * for the orphan sweep). A provider without status push is a `LegacyPodProvider`: wrap it in
 * `PollingPodProvider` (pollingProvider.ts), which polls `getPodStatus` and synthesizes
 * notifications.
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
 * ## A skeleton
 *
 *   class MyProvider implements Provider {
 *     readonly name = 'my-cloud';
 *     private notify: PodNotificationCallback = () => undefined;
 *     notifyPods(callback: PodNotificationCallback): void { this.notify = callback; }
 *     async createPod(pod: Pod, signal?: AbortSignal): Promise<void> {
 *       try { await api.run(toMyCloud(pod), { signal }); }
 *       catch (e) { throw isQuota(e) ? transient('quota', { cause: e }) : invalidInput(describe(e), { cause: e }); }
 *       // later, from the cloud's event stream: this.notify({ type: 'status', pod: withStatus(pod, observed) });
 *     }
 *     // updatePod, deletePod, getPod, getPodStatus, listPods, ping, nodeResources, nodeInfo …
 *   }
 *
 *   const provider = withDeepCopies(new MyProvider());
 *
 * In this folder: `simulated/` (an in-memory node for demos, tests and benchmarks) and
 * `kubernetes/` (offloading to another cluster). One provider never imports another (lint).
 */
export * from './provider.js';
export * from './errors.js';
export { deepCopy, deepCopyPod, deepCopyPodStatus, withDeepCopies } from './deepCopy.js';
export { PollingPodProvider, type PollingOptions } from './pollingProvider.js';
export { SimulatedProvider, DEFAULT_RESOURCES, type SimulatedProviderOptions } from './simulated/simulatedProvider.js';
export { SimulatedFaults, type SimulatedFaultOptions } from './simulated/faults.js';
