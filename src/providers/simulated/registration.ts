/**
 * The simulated provider's registration: its `provider:` block (latencies, pod CIDR, capacity,
 * failure injection) and how a node's provider is built from it. Exec sees the ConfigMaps and
 * Secrets of the host cluster, whose pods this node runs.
 */
import { z } from 'zod';
import { createConfigObjectReader } from '../../adapters/kubernetes/configObjects.js';
import { loadKubeConfig } from '../../adapters/kubernetes/kubeconfig.js';
import { nonEmptyString, nonNegativeNumber, positiveNumber } from '../../lib/schemaPrimitives.js';
import type { NodeResources } from '../provider.js';
import { handleOf, type ProviderRegistration } from '../registration.js';
import { DEFAULT_RESOURCES, SimulatedProvider } from './simulatedProvider.js';
import { definedOnly } from '../../lib/defaults.js';

const resources = z.strictObject({
  cpu: nonEmptyString.optional(),
  memory: nonEmptyString.optional(),
  pods: nonEmptyString.optional(),
}, 'a mapping with cpu, memory and/or pods (Kubernetes quantities as strings)');

const CIDR = /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/;

export const simulatedProviderSchema = z.strictObject({
  type: z.literal('simulated'),
  /** Pending → Running. */
  startLatencyMs: nonNegativeNumber.optional(),
  /** How long containers take to exit once asked to stop. */
  stopLatencyMs: nonNegativeNumber.optional(),
  /** Completes pods with restartPolicy Never/OnFailure this long after Running. */
  exitAfterMs: nonNegativeNumber.optional(),
  logIntervalMs: positiveNumber.optional(),
  /** Image repository → the argv a container without command or args runs (imageCommands.ts). */
  imageCommands: z.record(
    z.string('an image repository such as busybox'),
    z.array(z.string('a word of the command'), 'the command as a list of words, such as ["sh", "-c", "echo hi"]'),
    'a mapping of image repositories to commands',
  ).optional(),
  podCIDR: z.string('an IPv4 CIDR such as 10.244.0.0/16').regex(CIDR, 'an IPv4 CIDR such as 10.244.0.0/16').optional(),
  hostIP: nonEmptyString.optional(),
  /** Capacity (= allocatable). */
  resources: resources.optional(),
  /** The running-pod changes the node applies in place (inPlaceUpdates.ts); default none. */
  inPlaceUpdates: z.array(z.enum(['resize', 'ephemeralContainers'], 'resize or ephemeralContainers'), 'a list of resize and/or ephemeralContainers').optional(),
  faults: z.strictObject({
    createErrorRate: z.number('a fraction from 0 to 1').min(0, 'a fraction from 0 to 1').max(1, 'a fraction from 0 to 1').optional(),
    pingFailing: z.boolean('true or false').optional(),
  }, 'a mapping with createErrorRate and/or pingFailing').optional(),
}, 'a simulated provider mapping');

export type SimulatedProviderConfig = z.infer<typeof simulatedProviderSchema>;

/** Capacity (= allocatable) from the block: the defaults, with the block's entries over them. */
export function simulatedResources(resources: SimulatedProviderConfig['resources']): NodeResources {
  const list = { ...DEFAULT_RESOURCES.capacity, ...Object.fromEntries(Object.entries(resources ?? {}).filter(([, v]) => v !== undefined)) };
  return { capacity: list, allocatable: { ...list } };
}

export const simulatedRegistration: ProviderRegistration<typeof simulatedProviderSchema> = {
  type: 'simulated',
  schema: simulatedProviderSchema,
  async create(config, context) {
    const exitAfter = config.exitAfterMs;
    const provider = new SimulatedProvider({
      hostIP: config.hostIP ?? context.internalIP,
      resources: simulatedResources(config.resources),
      ...definedOnly({
        startLatencyMs: config.startLatencyMs,
        stopLatencyMs: config.stopLatencyMs,
        exitAfterMs: exitAfter !== undefined ? () => exitAfter : undefined,
        logIntervalMs: config.logIntervalMs,
        podCIDR: config.podCIDR,
        imageCommands: config.imageCommands,
        faults: config.faults ? { ...config.faults } : undefined,
        podEvents: context.podEvents,
        inPlaceUpdates: config.inPlaceUpdates,
      }),
      // exec sees the ConfigMaps and Secrets of the cluster whose pods this node runs.
      configSource: createConfigObjectReader(loadKubeConfig(context.host)),
    });
    return handleOf(provider);
  },
};
