/**
 * Providers: the door to whatever runs a virtual node's pods.
 *
 * - provider.ts: the contracts (PodProvider, LegacyPodProvider, NodeProvider, optional
 *   LogsProvider/StatsProvider) and PodNotification (status | gone).
 * - errors.ts: errors by kind (not-found, invalid-input, transient), walking `cause`.
 * - deepCopy.ts: `withDeepCopies(provider)` enforces the ownership rule at the boundary.
 * - pollingProvider.ts: turns a LegacyPodProvider into a PodProvider by polling.
 * - simulatedProvider.ts (+ simulated*.ts, ipAllocator.ts, syntheticLogs.ts): an in-memory node.
 *
 * Wiring sketch:
 *
 *   const sim = new SimulatedProvider({ clock });
 *   const provider = withDeepCopies(sim);          // Provider & LogsProvider & StatsProvider
 *   provider.notifyPods((n) => podActors.tell(n)); // before the first createPod
 *
 *   const polled = new PollingPodProvider(legacy, { clock });
 *   polled.notifyPods(onNotification);
 *   await polled.start();                          // learns existing pods, then polls
 */
export * from './provider.js';
export * from './errors.js';
export { deepCopy, deepCopyPod, deepCopyPodStatus, withDeepCopies } from './deepCopy.js';
export { PollingPodProvider, type PollingOptions } from './pollingProvider.js';
export { SimulatedProvider, DEFAULT_RESOURCES, type SimulatedProviderOptions } from './simulated/simulatedProvider.js';
export { SimulatedFaults, type SimulatedFaultOptions } from './simulated/faults.js';
