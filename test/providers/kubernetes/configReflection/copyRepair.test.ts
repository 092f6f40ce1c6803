/**
 * When a reflected ConfigMap or Secret copy is written again: judged from the watches' view of
 * the host object and the remote copy, never from Tether's memory of having written it.
 */
import t from 'tap';
import { decideCopyRepair, type CopyRepairInput } from '../../../../src/providers/kubernetes/configReflection/copyRepair.js';
import { contentDigest, remoteCopy, type HostObject } from '../../../../src/providers/kubernetes/configReflection/reflectedObject.js';

const source: HostObject = { metadata: { name: 'app-config', namespace: 'shop', resourceVersion: '7' }, data: { 'app.conf': 'v1' } };
const desired = remoteCopy('ConfigMap', source, 'shop-home', 'home');
const tampered: HostObject = { ...desired, data: { 'app.conf': 'tampered' } };
// What the remote stored for Tether's write when a mutating admission webhook adds a label to it.
const mutated: HostObject = { ...desired, metadata: { ...desired.metadata, labels: { ...desired.metadata?.labels, 'policy.example/audited': 'true' } } };
// What Tether wrote while the host object still had a label it has since lost.
const withOldLabel = remoteCopy('ConfigMap', { ...source, metadata: { ...source.metadata, labels: { tier: 'old' } } }, 'shop-home', 'home');
const base: CopyRepairInput = { referenced: true, sourceSynced: true, source, copiesSynced: true, copy: desired, desired };

const cases: readonly [string, Partial<CopyRepairInput>, string][] = [
  ['a copy that matches its source is left alone', {}, 'none:in-sync'],
  ['a copy that matches apart from server-set metadata is left alone', { copy: { ...desired, metadata: { ...desired.metadata, resourceVersion: '99', uid: 'r' } } }, 'none:in-sync'],
  ['a copy deleted in the remote cluster is written again, even though Tether wrote it before', { copy: undefined }, 'write'],
  ['a copy edited in the remote cluster is written again', { copy: tampered }, 'write'],
  ['a copy the remote stored with more than Tether sent (a mutating webhook\'s label) is in sync with that write', { copy: mutated, stored: contentDigest(mutated) }, 'none:in-sync'],
  ['after a restart (nothing remembered), a copy with Tether\'s mark and a webhook\'s label is in sync', { copy: mutated }, 'none:in-sync'],
  ['a label Tether wrote for an older host version, and no longer wants, is taken off (the mark differs)', { copy: withOldLabel }, 'write'],
  ['a copy that lost a label Tether sets is written again', { copy: { ...desired, metadata: { ...desired.metadata, labels: { 'tether.dev/managed-by': 'tether' } } } }, 'write'],
  ['a copy edited after the write the remote stored is written again', { copy: { ...mutated, data: { 'app.conf': 'tampered' } }, stored: contentDigest(mutated) }, 'write'],
  ['a copy the watch shows from before Tether\'s last write waits for the write\'s own event', { copy: tampered, awaitingEcho: true }, 'none:watch-behind'],
  ['so does one the watch does not show yet', { copy: undefined, awaitingEcho: true }, 'none:watch-behind'],
  ['nothing is judged before the host watch has listed', { sourceSynced: false, copy: undefined }, 'none:waiting-for-watches'],
  ['nothing is judged before the copies\' watch has listed', { copiesSynced: false, copy: undefined }, 'none:waiting-for-watches'],
  ['an object no pod references any more is the sweep\'s, not a repair', { referenced: false, copy: undefined }, 'none:unreferenced'],
  ['a host object that is gone is the host watch\'s to follow', { source: undefined, desired: undefined, copy: undefined }, 'none:no-source'],
];

for (const [name, change, expected] of cases) {
  void t.test(name, async (t) => {
    const verdict = decideCopyRepair({ ...base, ...change });
    t.equal(verdict.action === 'write' ? 'write' : `none:${verdict.why}`, expected);
  });
}
