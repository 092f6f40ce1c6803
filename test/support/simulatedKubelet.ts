/**
 * For kubelet API tests without a cluster: the simulated provider running `pod` (waited until
 * Running) behind a kubelet API server on 127.0.0.1 as node `vk-1`, with the fake access reviewer
 * (token `good` allowed). Both stop at the test's end.
 */
import type { Test } from 'tap';
import type { Pod } from '../../src/adapters/kubernetes/model.js';
import { startKubeletServer, type KubeletServer, type KubeletServerOptions } from '../../src/kubelet/kubeletServer.js';
import type { SimulatedProvider } from '../../src/providers/simulated/simulatedProvider.js';
import { waitFor } from '../harness/waitFor.js';
import { FakeAccessReviewer } from './fakeAccessReviewer.js';

export async function startSimulatedKubelet(t: Test, provider: SimulatedProvider, pod: Pod, streams?: KubeletServerOptions['streams']): Promise<KubeletServer> {
  provider.notifyPods(() => undefined);
  await provider.createPod(structuredClone(pod));
  const { namespace = 'default', name = '' } = pod.metadata ?? {};
  await waitFor(`${name} running`, async () => (await provider.getPodStatus(namespace, name))?.phase === 'Running', { timeoutMs: 5_000, intervalMs: 10 });
  const server = await startKubeletServer({ nodeName: 'vk-1', provider, reviewer: new FakeAccessReviewer(), address: '127.0.0.1', port: 0, ...(streams ? { streams } : {}) });
  t.teardown(async () => {
    await server.stop();
    void provider.stop();
  });
  return server;
}
