/**
 * The providers Tether knows, one line each. A provider's folder exports its registration
 * (registration.ts: `{ type, schema, create }`); adding a provider is its folder and one line
 * here. The config schema of a node's `provider:` block and `tether run`'s factory are both
 * derived from this list.
 */
import { z } from 'zod';
import { kubernetesRegistration } from './kubernetes/registration.js';
import type { ProviderConfigSchema, ProviderRegistration } from './registration.js';
import { simulatedRegistration } from './simulated/registration.js';

export const PROVIDER_REGISTRY = [
  simulatedRegistration,
  kubernetesRegistration,
] as const;

type Registered = (typeof PROVIDER_REGISTRY)[number];

/** A node's validated `provider:` block, one member per registered provider. */
export type ProviderConfig = z.infer<Registered['schema']>;

export type ProviderType = ProviderConfig['type'];

type Schemas<R extends readonly ProviderRegistration<ProviderConfigSchema>[]> = { -readonly [K in keyof R]: R[K]['schema'] };

function schemasOf<R extends readonly [ProviderRegistration<ProviderConfigSchema>, ...ProviderRegistration<ProviderConfigSchema>[]]>(registry: R): Schemas<R> {
  return registry.map((r) => r.schema) as Schemas<R>;
}

/** "a, b or c". */
function alternatives(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1] ?? ''}`;
}

/** The `provider:` block of a node: the schema of the provider its `type` names. */
export const providerConfigSchema = z.discriminatedUnion(
  'type',
  schemasOf(PROVIDER_REGISTRY),
  `a provider type: ${alternatives(PROVIDER_REGISTRY.map((r) => r.type))}`,
);

/** The registration of a config's provider (the config was validated by `providerConfigSchema`). */
export function registrationFor(type: string): ProviderRegistration | undefined {
  return PROVIDER_REGISTRY.find((r) => r.type === type);
}
