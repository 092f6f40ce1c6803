/**
 * Remote API failures become provider errors by class, keeping the server's message (a quota
 * rejection must name the quota on the host pod).
 */
import t from 'tap';
import { KubeApiError } from '../../../src/adapters/kubernetes/errors.js';
import { providerKindOf } from '../../../src/providers/errors.js';
import { asProviderCall, toProviderError, untilAborted } from '../../../src/providers/kubernetes/remoteErrors.js';

function apiException(code: number, reason: string, message: string): Error {
  return Object.assign(new Error(`HTTP-Code: ${code}\nMessage: ...`), {
    code, headers: {}, body: JSON.stringify({ kind: 'Status', status: 'Failure', reason, message, code }),
  });
}

const quotaMessage = 'pods "web-1" is forbidden: exceeded quota: tight, requested: pods=1, used: pods=1, limited: pods=1';

t.test('status codes map to provider error kinds', async (t) => {
  const table: [Error, string][] = [
    [apiException(404, 'NotFound', 'pods "x" not found'), 'not-found'],
    [apiException(400, 'BadRequest', 'bad'), 'invalid-input'],
    [apiException(422, 'Invalid', 'spec.containers: Required value'), 'invalid-input'],
    [apiException(403, 'Forbidden', quotaMessage), 'transient'],
    [apiException(409, 'AlreadyExists', 'exists'), 'transient'],
    [apiException(500, 'InternalError', 'boom'), 'transient'],
    [apiException(503, 'ServiceUnavailable', 'later'), 'transient'],
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), 'transient'],
    [Object.assign(new Error('request to https://x failed'), { name: 'FetchError', type: 'system' }), 'transient'],
  ];
  for (const [err, kind] of table) {
    const mapped = toProviderError(err, 'create remote pod shop-home/web-1');
    t.equal(providerKindOf(mapped), kind, (err as Error).message.split('\n')[0] ?? '');
    t.ok(providerKindOf(mapped) !== undefined, 'classified on purpose');
  }
});

t.test('a quota rejection keeps the server message, naming the quota', async (t) => {
  const mapped = toProviderError(apiException(403, 'Forbidden', quotaMessage), 'create remote pod shop-home/web-1') as Error;
  t.equal(mapped.message, `create remote pod shop-home/web-1: 403 Forbidden: ${quotaMessage}`);
  t.equal(providerKindOf(mapped), 'transient');
});

t.test('errors already wrapped as KubeApiError keep their class', async (t) => {
  const wrapped = new KubeApiError({ kind: 'not-found', status: 404, message: 'gone' }, 'read pod');
  t.equal(providerKindOf(toProviderError(wrapped, 'read remote pod')), 'not-found');
});

t.test('a bug (no API failure) is passed through unclassified', async (t) => {
  const bug = new TypeError('cannot read properties of undefined');
  t.equal(toProviderError(bug, 'x'), bug);
  await t.rejects(asProviderCall('x', () => Promise.reject(bug)), bug);
});

t.test('untilAborted rejects with the signal reason', async (t) => {
  const controller = new AbortController();
  const pending = untilAborted(new Promise(() => undefined), controller.signal);
  controller.abort(new Error('stopped'));
  await t.rejects(pending, { message: 'stopped' });
  t.equal(await untilAborted(Promise.resolve(3), new AbortController().signal), 3);
});

t.test('a 403 from an admission check is a rejection (invalid-input); exceeded quota and RBAC stay transient', async (t) => {
  const forbidden = (message: string): KubeApiError => new KubeApiError({ kind: 'forbidden', status: 403, reason: 'Forbidden', message }, 'create pod');
  const table: Array<[string, string]> = [
    ['pods "web" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false', 'invalid-input'],
    ['pods "web" is forbidden: maximum cpu usage per Container is 1, but limit is 2', 'invalid-input'],
    ['pods "web" is forbidden: failed quota: q: must specify limits.cpu for: app', 'invalid-input'],
    ['admission webhook "policy.example.com" denied the request: image registry not allowed', 'invalid-input'],
    ['pods "web" is forbidden: ValidatingAdmissionPolicy \'no-latest\' with binding \'b\' denied request: tag latest', 'invalid-input'],
    ['pods "web" is forbidden: exceeded quota: q, requested: cpu=2, used: cpu=9, limited: cpu=10', 'transient'],
    ['pods is forbidden: User "system:serviceaccount:t:tether" cannot create resource "pods" in API group "" in the namespace "x"', 'transient'],
  ];
  for (const [message, kind] of table) {
    const err = toProviderError(forbidden(message), 'create remote pod');
    t.equal((err as { kind?: string }).kind, kind, message);
  }
});
