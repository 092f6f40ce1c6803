/** The simulated provider runs the provider conformance suite. */
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { SimulatedProvider } from '../../../src/providers/simulated/simulatedProvider.js';
import { providerConformance } from './providerConformance.js';

providerConformance('the simulated provider', async () => {
  const provider = new SimulatedProvider({ startLatencyMs: 5, stopLatencyMs: 5 });
  return {
    provider,
    nodeName: 'vk-conformance',
    namespace: 'conformance',
    // A pod without a name can never run.
    invalidPod: (pod: Pod): Pod => ({ ...pod, metadata: { ...pod.metadata, name: '' } }),
    stop: () => provider.stop(),
  };
});
