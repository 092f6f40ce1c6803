/**
 * The example provider (examples/providers/echo/) runs the provider conformance suite, and its
 * registration validates and builds like a registered one: the example cannot drift from the contract.
 */
import t from 'tap';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { silentLogger } from '../../../src/adapters/logger.js';
import { EchoProvider } from '../../../examples/providers/echo/echoProvider.js';
import { echoRegistration } from '../../../examples/providers/echo/registration.js';
import { providerConformance } from './providerConformance.js';

providerConformance('the example echo provider', async () => {
  const provider = new EchoProvider();
  return {
    provider,
    nodeName: 'vk-echo',
    namespace: 'conformance',
    invalidPod: (pod: Pod): Pod => ({ ...pod, spec: { containers: [] } }),
    stop: async () => undefined,
  };
});

t.test('the echo registration validates its block and builds the provider from it', async (t) => {
  t.notOk(echoRegistration.schema.safeParse({ type: 'echo', cpus: 8 }).success, 'an unknown field is a problem');
  const config = echoRegistration.schema.parse({ type: 'echo', cpu: '8' });
  const handle = await echoRegistration.create(config, { nodeName: 'vk-echo', internalIP: '10.0.0.1', host: { kind: 'default' }, logger: silentLogger });
  t.equal(handle.provider.name, echoRegistration.type);
  t.equal((await handle.provider.capacity()).capacity.cpu, '8');
  t.equal(await handle.stop(), 'clean');
});
