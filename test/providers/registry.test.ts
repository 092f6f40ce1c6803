/**
 * The registry is the one list of providers: each registration's type names its schema's block,
 * types are unique, and a node's `provider:` block is validated by the schema of its type, an
 * unknown type being a problem that names the registered ones.
 */
import t from 'tap';
import { PROVIDER_REGISTRY, providerConfigSchema, registrationFor } from '../../src/providers/registry.js';

t.test('each registration validates a block of its own type, and only that', async (t) => {
  const types = PROVIDER_REGISTRY.map((r) => r.type);
  t.same([...new Set(types)], types, 'types are unique');
  for (const registration of PROVIDER_REGISTRY) {
    t.equal(registrationFor(registration.type), registration, `${registration.type} is found by its type`);
    const other = types.find((type) => type !== registration.type);
    t.notOk(registration.schema.safeParse({ type: other }).success, `${registration.type}'s schema refuses a ${other} block`);
  }
  t.equal(registrationFor('no-such-provider'), undefined);
});

t.test('a node\'s provider block goes to the schema its type names; an unknown type names the registered ones', async (t) => {
  t.ok(providerConfigSchema.safeParse({ type: 'simulated', startLatencyMs: 5 }).success);
  const wrongField = providerConfigSchema.safeParse({ type: 'simulated', startLatencyMs: 'fast' });
  t.match(wrongField.error?.issues[0], { path: ['startLatencyMs'], message: 'a non-negative number' });
  const unknown = providerConfigSchema.safeParse({ type: 'nomad' });
  const message = unknown.error?.issues[0]?.message ?? '';
  t.match(message, /^a provider type: /);
  for (const registration of PROVIDER_REGISTRY) t.ok(message.includes(registration.type), `names ${registration.type}: ${message}`);
});
