import t from 'tap';
import { CoreV1Api } from '@kubernetes/client-node';
import { KubeApiError } from '../../../src/adapters/kubernetes/errors.js';
import { PodApiClient } from '../../../src/adapters/kubernetes/podApiClient.js';
import type { Priority, RequestScheduler } from '../../../src/adapters/kubernetes/rateLimiter.js';
import { MockApiServer, pod, status } from './mockApiServer.js';

/** A scheduler that runs at once and remembers the priority of every call. */
function recordingScheduler(): RequestScheduler & { priorities: Priority[] } {
  const priorities: Priority[] = [];
  return {
    priorities,
    schedule: (p, fn) => {
      priorities.push(p);
      return fn();
    },
  };
}

t.test('PodApiClient against a mock apiserver', async (t) => {
  const server = await MockApiServer.start();
  t.teardown(() => server.close());
  const limiter = recordingScheduler();
  const pods = new PodApiClient(server.kubeConfig().makeApiClient(CoreV1Api), limiter);
  const podPath = '/api/v1/namespaces/ns/pods/p';

  t.test('status patch is a strategic merge patch of {status} and the uid only, with no resourceVersion', async (t) => {
    server.route((r) => (r.method === 'PATCH' && r.url.pathname === `${podPath}/status` ? { body: pod('p', '7') } : undefined));
    await pods.patchPodStatus('ns', 'p', 'uid-1', {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
    });
    const req = server.matching('PATCH', `${podPath}/status`).at(-1);
    t.equal(req?.headers['content-type'], 'application/strategic-merge-patch+json');
    const body = JSON.parse(req?.body ?? '{}') as Record<string, unknown>;
    t.same(Object.keys(body).sort(), ['metadata', 'status'], 'nothing but status and the uid');
    t.same(body.metadata, { uid: 'uid-1' }, 'metadata is the uid only: no labels, annotations');
    t.notMatch(req?.body ?? '', /resourceVersion/);
    t.same(body.status, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] });
    t.equal(limiter.priorities.at(-1), 'status');
  });

  t.test('annotations are a merge patch, carrying the uid, where null deletes a key', async (t) => {
    server.route((r) => (r.method === 'PATCH' && r.url.pathname === podPath ? { body: pod('p', '8') } : undefined));
    await pods.patchPodAnnotations('ns', 'p', 'uid-1', { 'tether.dev/a': '1', 'tether.dev/gone': null });
    const req = server.matching('PATCH', podPath).at(-1);
    t.equal(req?.headers['content-type'], 'application/merge-patch+json');
    t.same(JSON.parse(req?.body ?? '{}'), { metadata: { uid: 'uid-1', annotations: { 'tether.dev/a': '1', 'tether.dev/gone': null } } });
  });

  t.test('delete carries a UID precondition and the grace period, at delete priority', async (t) => {
    server.route((r) => (r.method === 'DELETE' && r.url.pathname === podPath ? { body: pod('p', '9') } : undefined));
    await pods.deletePod('ns', 'p', { uid: 'uid-123', gracePeriodSeconds: 0 });
    const req = server.matching('DELETE', podPath).at(-1);
    t.same(JSON.parse(req?.body ?? '{}'), { preconditions: { uid: 'uid-123' }, gracePeriodSeconds: 0 });
    t.equal(req?.url.searchParams.get('gracePeriodSeconds'), '0');
    t.equal(limiter.priorities.at(-1), 'delete');
  });

  t.test('delete of a recreated pod (UID mismatch) is a conflict; of a missing pod, a success', async (t) => {
    server.route((r) =>
      r.method === 'DELETE' && r.url.pathname === '/api/v1/namespaces/ns/pods/recreated'
        ? { status: 409, body: status(409, 'Conflict', 'Precondition failed: UID in precondition: uid-old, UID in object meta: uid-new') }
        : undefined,
    );
    const err = await pods.deletePod('ns', 'recreated', { uid: 'uid-old' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(err instanceof KubeApiError);
    t.equal((err as KubeApiError).kind, 'conflict');
    t.match((err as KubeApiError).message, /Precondition failed/);
    await t.resolves(pods.deletePod('ns', 'never-existed', { uid: 'u' }), '404 on delete means done');
  });

  t.test('getPod returns undefined on 404 and the pod otherwise', async (t) => {
    t.equal(await pods.getPod('ns', 'missing'), undefined);
    server.route((r) => (r.method === 'GET' && r.url.pathname === podPath ? { body: pod('p', '10') } : undefined));
    const got = await pods.getPod('ns', 'p');
    t.equal(got?.metadata?.resourceVersion, '10');
  });

  t.test('listPods follows continue tokens and keeps the first page resourceVersion', async (t) => {
    server.route((r) => {
      if (r.method !== 'GET' || r.url.pathname !== '/api/v1/pods') return undefined;
      const cont = r.url.searchParams.get('continue');
      return cont === null
        ? { body: { kind: 'PodList', metadata: { resourceVersion: '100', continue: 'page2' }, items: [pod('a', '1')] } }
        : { body: { kind: 'PodList', metadata: { resourceVersion: '100' }, items: [pod('b', '2')] } };
    });
    const list = await pods.listPods({ fieldSelector: 'spec.nodeName=vk-1' });
    t.same(list.items.map((p) => p.metadata?.name), ['a', 'b']);
    t.equal(list.resourceVersion, '100');
    const reqs = server.matching('GET', '/api/v1/pods');
    t.equal(reqs.length, 2);
    t.equal(reqs[0]?.url.searchParams.get('fieldSelector'), 'spec.nodeName=vk-1');
    t.equal(reqs[1]?.url.searchParams.get('continue'), 'page2');
  });

  t.test('a 422 whose Status names metadata.uid in details.causes is the uid precondition: conflict, whatever the message says', async (t) => {
    // The shape kube-apiserver sends when the stored pod has another uid (ValidateObjectMetaUpdate).
    const invalid = (field: string): Record<string, unknown> => ({
      ...status(422, 'Invalid', 'Pod "p" is invalid: metadata.uid mentioned in the words only'),
      details: { name: 'p', kind: 'Pod', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "uid-1": field is immutable', field }] },
    });
    let field = 'metadata.uid';
    server.route((r) => (r.method === 'PATCH' && r.url.pathname === `${podPath}/status` ? { status: 422, body: invalid(field) } : undefined));
    const patch = () => pods.patchPodStatus('ns', 'p', 'uid-1', { phase: 'Running' }).then(() => undefined, (e: unknown) => e);
    t.equal(((await patch()) as KubeApiError).kind, 'conflict', 'another pod holds the name');
    field = 'status.phase'; // names metadata.uid only in its message
    const other = (await patch()) as KubeApiError;
    t.equal(other.kind, 'invalid-input', 'any other invalid field stays a bad request');
    t.same(other.causeFields, ['status.phase']);
  });

  t.test('a quota rejection surfaces as forbidden with the server message', async (t) => {
    const msg = 'pods "p" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=10, limited: pods=10';
    server.route((r) => (r.method === 'PATCH' && r.url.pathname === `${podPath}/status` ? { status: 403, body: status(403, 'Forbidden', msg) } : undefined));
    const err = await pods.patchPodStatus('ns', 'p', 'uid-1', { phase: 'Running' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(err instanceof KubeApiError);
    t.equal((err as KubeApiError).kind, 'forbidden');
    t.equal((err as KubeApiError).status, 403);
    t.match((err as KubeApiError).message, /exceeded quota/);
  });
});
