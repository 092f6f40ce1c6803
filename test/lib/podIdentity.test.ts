// The one pod identity: a pod is its uid; a named pod without one is not yet an identity.
import t from 'tap';
import { isIdentified, podKey, type NamedPod } from '../../src/lib/podIdentity.js';

void t.test('a pod keyed by name is "namespace/name", the informer caches\' own key', async (t) => {
  t.equal(podKey('team-a', 'web-0'), 'team-a/web-0');
});

void t.test('a named pod is an identity only once it carries its uid', async (t) => {
  const named = (uid: string | undefined): NamedPod => ({ namespace: 'team-a', name: 'web-0', uid });
  t.equal(isIdentified(named('4f1c')), true);
  t.equal(isIdentified(named(undefined)), false);
  t.equal(isIdentified(named('')), false, 'an empty uid mark names no pod');
});
