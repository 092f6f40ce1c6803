/**
 * What a node's admitted pods use: summed from a list, or kept as pods start and stop counting,
 * with the same answer either way, the asking pod left out, and no rounding error left behind
 * by a pod asking for more than 2^53 of something.
 */
import t from 'tap';
import fc from 'fast-check';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { UsageTotal, usageOf } from '../../../src/actors/admission/nodeUsage.js';

const pod = (uid: string, requests: Record<string, string>, hostPort?: number): Pod => ({
  metadata: { namespace: 'shop', name: uid, uid },
  spec: { containers: [{ name: 'app', image: 'x', resources: { requests }, ...(hostPort ? { ports: [{ containerPort: 80, hostPort }] } : {}) }] },
});

t.test('a list of pods: their count, summed requests and host ports', async (t) => {
  const usage = usageOf([pod('a', { cpu: '1', memory: '1Ki' }, 8080), pod('b', { cpu: '250m' })]);
  t.equal(usage.pods, 2);
  t.same(usage.requests, { cpu: 1250, memory: 1024 });
  t.same(usage.hostPorts(), [{ ip: '0.0.0.0', protocol: 'TCP', port: 8080 }]);
});

t.test('a running total: a newer object of a pod replaces its share; removing it frees it', async (t) => {
  const total = new UsageTotal();
  total.put('a', pod('a', { cpu: '1' }, 8080));
  total.put('b', pod('b', { cpu: '2' }));
  total.put('a', pod('a', { cpu: '500m' }));
  t.same(total.usage('').requests, { cpu: 2500 });
  t.same(total.usage('').hostPorts(), [], 'the newer object asks for no host port');
  total.remove('b');
  total.remove('missing');
  t.equal(total.usage('').pods, 1);
  t.same(total.usage('').requests, { cpu: 500 }, 'b is gone');
  t.equal(total.size, 1);
});

t.test('the asking pod is left out of what the others use', async (t) => {
  const total = new UsageTotal();
  total.put('a', pod('a', { cpu: '1' }, 8080));
  total.put('b', pod('b', { cpu: '2' }, 9090));
  const others = total.usage('a');
  t.equal(others.pods, 1);
  t.same(others.requests, { cpu: 2000 });
  t.same(others.hostPorts(), [{ ip: '0.0.0.0', protocol: 'TCP', port: 9090 }]);
  t.same(total.usage('').requests, { cpu: 3000 }, 'the total itself is unchanged');
});

t.test('a pod asking for more than 2^53 leaves no rounding error once it is gone', async (t) => {
  const total = new UsageTotal();
  total.put('a', pod('a', { memory: '3' }));
  total.put('huge', pod('huge', { memory: '9E' }));
  t.ok((total.usage('').requests['memory'] ?? 0) > 2 ** 53);
  total.remove('huge');
  t.same(total.usage('').requests, { memory: 3 });
  total.put('b', pod('b', { memory: '4' }));
  t.same(total.usage('').requests, { memory: 7 }, 'and the total goes on from there');
});

t.test('property: a running total says what summing its pods afresh says', async () => {
  const uid = fc.constantFrom('a', 'b', 'c', 'd');
  const amount = fc.oneof(fc.integer({ min: 0, max: 4000 }).map((m) => `${m}m`), fc.constantFrom('1E', '8Ei', '1', '0'));
  const step = fc.oneof(
    fc.record({ op: fc.constant('put' as const), uid, cpu: amount, memory: amount, port: fc.option(fc.constantFrom(80, 81)) }),
    fc.record({ op: fc.constant('remove' as const), uid }),
  );
  fc.assert(
    fc.property(fc.array(step, { maxLength: 30 }), uid, (steps, except) => {
      const total = new UsageTotal();
      const model = new Map<string, Pod>();
      for (const s of steps) {
        if (s.op === 'put') {
          const p = pod(s.uid, { cpu: s.cpu, memory: s.memory }, s.port ?? undefined);
          total.put(s.uid, p);
          model.set(s.uid, p);
        } else {
          total.remove(s.uid);
          model.delete(s.uid);
        }
      }
      const got = total.usage(except);
      const want = usageOf([...model].filter(([u]) => u !== except).map(([, p]) => p));
      // A resource no pod asks for any more may stay in the total as 0: the same to admission.
      const names = new Set([...Object.keys(got.requests), ...Object.keys(want.requests)]);
      const same = [...names].every((n) => (got.requests[n] ?? 0) === (want.requests[n] ?? 0));
      const ports = (u: typeof got): string[] => u.hostPorts().map((p) => JSON.stringify(p)).sort();
      return same && got.pods === want.pods && JSON.stringify(ports(got)) === JSON.stringify(ports(want));
    }),
  );
});
