/** A provider without status push, polled by PollingPodProvider, runs the provider conformance suite. */
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { PollingPodProvider } from '../../../src/providers/pollingProvider.js';
import type { LegacyPodProvider, NodeProvider, Provider } from '../../../src/providers/provider.js';
import { SimulatedProvider } from '../../../src/providers/simulated/simulatedProvider.js';
import { providerConformance } from './providerConformance.js';

providerConformance('a legacy provider behind PollingPodProvider', async () => {
  const backend = new SimulatedProvider({ startLatencyMs: 5, stopLatencyMs: 5 });
  // Only the legacy half: no notifyPods, so status comes from polling alone.
  const legacy: LegacyPodProvider = {
    createPod: (pod, signal) => backend.createPod(pod, signal),
    updatePod: (pod, signal) => backend.updatePod(pod, signal),
    deletePod: (pod, signal) => backend.deletePod(pod, signal),
    getPod: (namespace, name, signal) => backend.getPod(namespace, name, signal),
    getPodStatus: (namespace, name, signal) => backend.getPodStatus(namespace, name, signal),
    listPods: (signal) => backend.listPods(signal),
  };
  const polling = new PollingPodProvider(legacy, { intervalMs: 10 });
  const node: NodeProvider = {
    name: 'polled', ping: (signal) => backend.ping(signal), capacity: () => backend.capacity(), nodeInfo: () => backend.nodeInfo(),
  };
  const provider: Provider = Object.assign(polling, node);
  return {
    provider,
    nodeName: 'vk-conformance',
    namespace: 'conformance',
    invalidPod: (pod: Pod): Pod => ({ ...pod, metadata: { ...pod.metadata, name: '' } }),
    start: () => polling.start(),
    stop: async () => {
      await polling.stop();
      await backend.stop();
    },
  };
});
