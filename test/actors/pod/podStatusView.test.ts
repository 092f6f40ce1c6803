import t from 'tap';
import type { Pod, PodStatus } from '../../../src/adapters/kubernetes/model.js';
import { ownedFingerprint, specFingerprint } from '../../../src/actors/pod/podStatusView.js';

/** `value` with its `field` counting reads: a fingerprint that reads it again was taken twice. */
function counting<T extends object>(value: T, field: string, content: unknown): { value: T; reads: () => number } {
  let reads = 0;
  Object.defineProperty(value, field, { enumerable: true, get: () => (reads++, content) });
  return { value, reads: () => reads };
}

void t.test('a status compared several times is read once, and compares as the API server stores it', async (t) => {
  const { value: status, reads } = counting<PodStatus>({ podIP: '10.0.0.1' }, 'phase', 'Running');
  const first = ownedFingerprint(status);
  ownedFingerprint(status);
  t.equal(reads(), 1);
  t.equal(ownedFingerprint({ phase: 'Running', podIP: '10.0.0.1' }), first, 'an equal status built apart compares equal');
  const at = new Date('2026-12-07T10:00:00.250Z');
  t.equal(ownedFingerprint({ phase: 'Running', startTime: at }), ownedFingerprint({ phase: 'Running', startTime: '2026-12-07T10:00:00Z' as unknown as Date }), 'timestamps at whole seconds');
  t.not(ownedFingerprint({ phase: 'Pending' }), first);
  t.equal(ownedFingerprint(undefined), ownedFingerprint({}), 'no status is an empty one');
});

void t.test('the spec fingerprint is taken once per pod object and ignores status and Tether\'s own annotations', async (t) => {
  const spec = { containers: [{ name: 'app', image: 'pause' }] };
  const { value: pod, reads } = counting<Pod>({ metadata: { name: 'p', labels: { app: 'a' } } }, 'spec', spec);
  const first = specFingerprint(pod);
  specFingerprint(pod);
  t.equal(reads(), 1);
  t.equal(specFingerprint({ metadata: { name: 'p', labels: { app: 'a' }, annotations: { 'tether.dev/create-error': 'x' } }, spec, status: { phase: 'Running' } }), first);
  t.not(specFingerprint({ metadata: { name: 'p', labels: { app: 'b' } }, spec }), first, 'labels count');
});
