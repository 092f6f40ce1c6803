/**
 * The provider conformance suite: one specification of the provider contract
 * (src/providers/provider.ts, docs/providers.md) that every provider runs, through a factory
 * that builds a fresh one per case. The provider is driven as Tether drives it: wrapped once in
 * `withDeepCopies`, `notifyPods` called before the first create, pods carrying Tether's marks.
 * Not a test file itself: each provider's runner calls `providerConformance(name, factory)`.
 *
 * Every case waits on conditions (`waitFor`), never on sleeps, so a slow backend (a real remote
 * cluster) passes the same specification as the in-memory ones.
 */
import { randomBytes } from 'node:crypto';
import t, { type Test } from 'tap';
import type { Pod } from '../../../src/adapters/kubernetes/model.js';
import { withDeepCopies } from '../../../src/providers/deepCopy.js';
import { providerKindOf } from '../../../src/providers/errors.js';
import { routingUid } from '../../../src/providers/identityChecks.js';
import { hostUidMark, tetherMarkPrefix } from '../../../src/providers/podMarks.js';
import type { PodNotification, Provider } from '../../../src/providers/provider.js';
import { waitFor } from '../../harness/waitFor.js';
import { isReconcilingProvider } from '../../../src/providers/provider.js';
import { runReconcilers } from '../../support/reconcilers.js';

export interface ConformanceSubject {
  readonly provider: Provider;
  /** The virtual node the provider serves (Tether's `tether.dev/virtual-node` mark). */
  readonly nodeName: string;
  /** The host namespace the case's pods are in. */
  readonly namespace: string;
  /** A pod the provider can never run as specified (`createPod` rejects `invalidInput`). */
  readonly invalidPod: (pod: Pod) => Pod;
  /** Called once after `notifyPods` (a polling provider learns its pods and starts polling). */
  readonly start?: () => Promise<void>;
  readonly stop: () => Promise<unknown>;
  /** How long one condition may take (default 15 s; a real cluster needs more). */
  readonly patienceMs?: number;
}

export type ConformanceFactory = (t: Test) => Promise<ConformanceSubject>;

type Phase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
const RANK: Record<string, number> = { Pending: 0, Running: 1, Unknown: 1, Succeeded: 2, Failed: 2 };
const terminal = (phase: string | undefined): boolean => phase === 'Succeeded' || phase === 'Failed';

interface Harness {
  readonly provider: Provider;
  readonly subject: ConformanceSubject;
  readonly seen: PodNotification[];
  /** Set while a provider call runs synchronously: a notification then would be delivered from inside it. */
  readonly inCall: { value: boolean };
  pod(name?: string): Pod;
  create(pod: Pod): Promise<void>;
  until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T>;
  statusesOf(uid: string): Pod[];
}

async function harness(t: Test, factory: ConformanceFactory): Promise<Harness> {
  const subject = await factory(t);
  t.teardown(() => subject.stop());
  const provider = withDeepCopies(subject.provider);
  const seen: PodNotification[] = [];
  const inCall = { value: false };
  const syncDeliveries: PodNotification[] = [];
  provider.notifyPods((n) => {
    if (inCall.value) syncDeliveries.push(n);
    seen.push(n);
  });
  await subject.start?.();
  // The provider's loops (remote pods, polling) run as a node's subtree runs them.
  if (isReconcilingProvider(subject.provider)) runReconcilers(t, subject.provider.reconcilers());
  const timeoutMs = subject.patienceMs ?? 15_000;
  const until = <T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> =>
    waitFor(what, probe, { timeoutMs, intervalMs: 20 });
  return {
    provider,
    subject,
    seen,
    inCall,
    pod(name = `p-${randomBytes(3).toString('hex')}`): Pod {
      const uid = `uid-${randomBytes(6).toString('hex')}`;
      return {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          namespace: subject.namespace, name, uid, labels: { app: 'conformance' },
          // What Tether hands every provider: the host uid and the node as marks (podStatusView.ts).
          annotations: { [`${tetherMarkPrefix}virtual-node`]: subject.nodeName, [hostUidMark]: uid, note: 'kept' },
        },
        spec: {
          nodeName: subject.nodeName, restartPolicy: 'Always', terminationGracePeriodSeconds: 1,
          containers: [{ name: 'main', image: 'registry.invalid/conformance:1' }],
        },
      };
    },
    /** createPod as the pod actor calls it: retried while the answer is transient. */
    async create(pod: Pod): Promise<void> {
      await until(`createPod ${pod.metadata?.name}`, async () => {
        inCall.value = true;
        const call = provider.createPod(structuredClone(pod));
        inCall.value = false;
        if (syncDeliveries.length > 0) throw new Error(`a notification was delivered from inside createPod: ${JSON.stringify(syncDeliveries[0])}`);
        try {
          await call;
          return true;
        } catch (error) {
          if (providerKindOf(error) === 'transient') return false;
          throw error;
        }
      });
    },
    until,
    statusesOf(uid: string): Pod[] {
      return seen.flatMap((n) => (n.type === 'status' && routingUid(n) === uid ? [n.pod] : []));
    },
  };
}

function uidOf(pod: Pod): string {
  return pod.metadata?.uid ?? '';
}

async function rejection(call: Promise<unknown>): Promise<unknown> {
  return call.then(() => undefined, (error: unknown) => error);
}

/** Deletes `pod` gracefully and waits for the provider to report its end (a terminal status, or a `gone`). */
async function deleteAndWaitForEnd(h: Harness, pod: Pod): Promise<void> {
  await h.provider.deletePod(structuredClone(pod));
  await h.until(`the end of ${pod.metadata?.name} is reported`, () =>
    h.statusesOf(uidOf(pod)).some((p) => terminal(p.status?.phase))
    || h.seen.some((n) => n.type === 'gone' && n.uid === uidOf(pod)));
}

export function providerConformance(name: string, factory: ConformanceFactory): void {
  t.test(`${name} conforms to the provider contract`, async (t) => {
    t.test('create twice: the second create of the same pod (same uid) resolves and changes nothing', async (t) => {
      const h = await harness(t, factory);
      const pod = h.pod();
      await h.create(pod);
      await h.create(pod);
      await h.until('a status for the pod', () => h.statusesOf(uidOf(pod)).length > 0);
      const listed = (await h.provider.listPods()).filter((p) => p.metadata?.name === pod.metadata?.name);
      t.equal(listed.length, 1, 'one pod, not two');
      t.equal(listed[0] === undefined ? undefined : routingUid({ type: 'status', pod: listed[0] }), uidOf(pod), 'the pod first created');
    });

    t.test('delete twice: a second delete is accepted or answered notFound ("already deleted"), never another error', async (t) => {
      const h = await harness(t, factory);
      const pod = h.pod();
      await h.create(pod);
      await h.provider.deletePod(structuredClone(pod));
      const second = await rejection(h.provider.deletePod(structuredClone(pod)));
      t.ok(second === undefined || (providerKindOf(second) === 'not-found'), `second delete: ${String(second)}`);
      // Accepted: the end is still to be reported. notFound: that is the report (the caller takes the pod as deleted).
      if (second === undefined) {
        await h.until('the end is reported', () => h.statusesOf(uidOf(pod)).some((p) => terminal(p.status?.phase))
          || h.seen.some((n) => n.type === 'gone' && n.uid === uidOf(pod)));
      }
    });

    t.test('notifications come in order per pod: the phase never goes back, the end is last, none from inside a call', async (t) => {
      const h = await harness(t, factory);
      const pods = [h.pod(), h.pod()];
      for (const pod of pods) await h.create(pod);
      for (const pod of pods) await h.until(`a status for ${pod.metadata?.name}`, () => h.statusesOf(uidOf(pod)).length > 0);
      for (const pod of pods) await deleteAndWaitForEnd(h, pod);
      for (const pod of pods) {
        const phases = h.statusesOf(uidOf(pod)).map((p) => (p.status?.phase ?? 'Pending') as Phase);
        t.ok(phases.every((phase, i) => i === 0 || (RANK[phase] ?? 0) >= (RANK[phases[i - 1] ?? 'Pending'] ?? 0)), `phases of ${pod.metadata?.name}: ${phases.join(' → ')}`);
        const firstEnd = phases.findIndex((phase) => terminal(phase));
        t.ok(firstEnd === -1 || phases.slice(firstEnd).every((phase) => terminal(phase)), 'nothing but the end after the end');
      }
    });

    t.test('get after delete: once the end is reported, the pod is gone or terminal, never running again', async (t) => {
      const h = await harness(t, factory);
      const pod = h.pod();
      await h.create(pod);
      await h.until('a status for the pod', () => h.statusesOf(uidOf(pod)).length > 0);
      await deleteAndWaitForEnd(h, pod);
      const got = await h.provider.getPod(h.subject.namespace, pod.metadata?.name ?? '');
      t.ok(got === undefined || terminal(got.status?.phase), `getPod: ${got?.status?.phase ?? 'undefined'}`);
      await h.until('the provider forgets the pod, or keeps it terminal', async () => {
        const later = await h.provider.getPod(h.subject.namespace, pod.metadata?.name ?? '');
        return later === undefined || terminal(later.status?.phase);
      });
      const status = await h.provider.getPodStatus(h.subject.namespace, pod.metadata?.name ?? '');
      t.ok(status === undefined || terminal(status.phase), 'getPodStatus agrees');
    });

    t.test('deep copies: mutating a pod passed in, got, listed or notified, or the capacity got, never changes the provider\'s view', async (t) => {
      const h = await harness(t, factory);
      const pod = h.pod();
      const passed = structuredClone(pod);
      await h.until('createPod', async () => {
        try {
          await h.provider.createPod(passed);
          return true;
        } catch (error) {
          if (providerKindOf(error) === 'transient') return false;
          throw error;
        }
      });
      passed.metadata!.labels!.app = 'mutated-after-create';
      passed.spec!.containers[0]!.image = 'mutated';
      await h.until('a status for the pod', () => h.statusesOf(uidOf(pod)).length > 0);
      const notified = h.statusesOf(uidOf(pod))[0]!;
      notified.metadata!.labels = { app: 'mutated-notified' };
      if (notified.status) notified.status.phase = 'Failed';
      const got = (await h.provider.getPod(h.subject.namespace, pod.metadata?.name ?? ''))!;
      got.metadata!.labels!.app = 'mutated-got';
      const listed = (await h.provider.listPods()).find((p) => p.metadata?.name === pod.metadata?.name)!;
      listed.metadata!.labels!.app = 'mutated-listed';
      const capacity = await h.provider.capacity();
      (capacity.capacity as Record<string, string>).cpu = '0';
      const again = await h.provider.getPod(h.subject.namespace, pod.metadata?.name ?? '');
      t.equal(again?.metadata?.labels?.app, 'conformance', 'labels as created');
      t.equal(again?.spec?.containers[0]?.image, 'registry.invalid/conformance:1', 'image as created');
      t.not(again?.status?.phase, 'Failed', 'status as observed, not as mutated');
      t.not((await h.provider.capacity()).capacity.cpu, '0', 'capacity as the provider has it');
    });

    t.test('identity round-trip: the host uid and Tether\'s annotations come back on every pod returned or notified', async (t) => {
      const h = await harness(t, factory);
      const pod = h.pod();
      await h.create(pod);
      await h.until('a status for the pod', () => h.statusesOf(uidOf(pod)).length > 0);
      const marks = Object.fromEntries(Object.entries(pod.metadata?.annotations ?? {}).filter(([k]) => k.startsWith(tetherMarkPrefix)));
      const check = (what: string, got: Pod | undefined): void => {
        t.equal(got?.metadata?.namespace, pod.metadata?.namespace, `${what}: the host namespace`);
        t.equal(got?.metadata?.name, pod.metadata?.name, `${what}: the host name`);
        t.equal(got === undefined ? undefined : routingUid({ type: 'status', pod: got }), uidOf(pod), `${what}: routes to the host uid`);
        t.match(got?.metadata?.annotations ?? {}, marks, `${what}: Tether's annotations as given`);
      };
      for (const notified of h.statusesOf(uidOf(pod))) check('notified', notified);
      check('getPod', await h.provider.getPod(h.subject.namespace, pod.metadata?.name ?? ''));
      check('listPods', (await h.provider.listPods()).find((p) => p.metadata?.name === pod.metadata?.name));
      t.notOk(h.seen.some((n) => routingUid(n) === undefined), 'no notification without a host uid');
    });

    t.test('errors are classified: an unknown pod is notFound, a spec that can never run is invalidInput', async (t) => {
      const h = await harness(t, factory);
      const unknown = h.pod('never-created');
      for (const [method, call] of [
        ['updatePod', () => h.provider.updatePod(structuredClone(unknown))],
        ['deletePod', () => h.provider.deletePod(structuredClone(unknown))],
      ] as const) {
        const error = await rejection(call());
        t.ok(providerKindOf(error) === 'not-found', `${method} of an unknown pod: notFound (${String(error)})`);
      }
      t.equal(await h.provider.getPod(h.subject.namespace, 'never-created'), undefined, 'getPod of an unknown pod: undefined');
      const invalid = await rejection(h.provider.createPod(h.subject.invalidPod(h.pod())));
      t.ok(providerKindOf(invalid) === 'invalid-input', `createPod of an invalid spec: invalidInput (${String(invalid)})`);
    });
  });
}
