/**
 * The echo provider's registration, as a provider folder in src/providers would export it. To
 * plug it in, the folder goes to src/providers/echo/ and one line to src/providers/registry.ts:
 *
 *   export const PROVIDER_REGISTRY = [simulatedRegistration, kubernetesRegistration, echoRegistration] as const;
 *
 * after which a node's config may say `provider: { type: echo, cpu: '8' }`.
 */
import { z } from 'zod';
import { nonEmptyString } from '../../../src/lib/schemaPrimitives.js';
import type { ProviderRegistration } from '../../../src/providers/registration.js';
import { EchoProvider } from './echoProvider.js';

export const echoProviderSchema = z.strictObject({
  type: z.literal('echo'),
  /** The node's CPUs (a Kubernetes quantity). */
  cpu: nonEmptyString.optional(),
}, 'an echo provider mapping');

export const echoRegistration: ProviderRegistration<typeof echoProviderSchema> = {
  type: 'echo',
  schema: echoProviderSchema,
  async create(config) {
    const cpu = config.cpu ?? '4';
    const list = { cpu, memory: '8Gi', pods: '110' };
    const provider = new EchoProvider({ resources: { capacity: list, allocatable: { ...list } } });
    // Nothing to connect to or close: ready at once, stopped at once.
    return { provider, ready: Promise.resolve(), done: Promise.resolve(), stop: async () => 'clean' };
  },
};
