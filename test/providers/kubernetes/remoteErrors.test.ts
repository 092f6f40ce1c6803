/**
 * Remote API failures become provider errors by class, keeping the server's message (a quota
 * rejection must name the quota on the host pod).
 */
import t from 'tap';
import { readFileSync } from 'node:fs';
import type { AdmissionDenial } from '../../../src/adapters/kubernetes/admissionDenial.js';
import { KubeApiError } from '../../../src/adapters/kubernetes/errors.js';
import { providerKindOf } from '../../../src/providers/errors.js';
import { asProviderCall, toProviderError, untilAborted } from '../../../src/providers/kubernetes/remoteErrors.js';

function apiException(code: number, reason: string, message: string, body?: object): Error {
  return Object.assign(new Error(`HTTP-Code: ${code}\nMessage: ...`), {
    code, headers: {}, body: JSON.stringify(body ?? { kind: 'Status', status: 'Failure', reason, message, code }),
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

t.test('a 403 that judges the pod is a rejection (invalid-input); exceeded quota and RBAC stay transient, by the adapter\'s denial', async (t) => {
  const recorded = JSON.parse(readFileSync(new URL('../../adapters/kubernetes/fixtures/admissionDenials.json', import.meta.url), 'utf8')) as Record<string, { code: number; reason: string; message: string }>;
  const table: Array<[string, string]> = [
    ['pod-security', 'invalid-input'],
    ['limit-range', 'invalid-input'],
    ['quota-requires', 'invalid-input'],
    ['admission-policy-invalid', 'invalid-input'],
    ['quota-exceeded', 'transient'],
    ['authorization', 'transient'],
  ];
  for (const [name, kind] of table) {
    const body = recorded[name];
    if (!body) throw new Error(`no fixture ${name}`);
    const err = toProviderError(apiException(body.code, body.reason, body.message, body), 'create remote pod') as Error;
    t.equal(providerKindOf(err), kind, name);
    t.equal(err.message, `create remote pod: ${body.code} ${body.reason}: ${body.message}`, `${name}: the server's words kept`);
  }
  const denied = (denial?: AdmissionDenial): KubeApiError => new KubeApiError({ kind: 'forbidden', status: 403, reason: 'Forbidden', message: 'm', ...(denial ? { denial } : {}) }, 'create pod');
  t.equal(providerKindOf(toProviderError(denied('webhook'), 'x')), 'invalid-input', 'a webhook 403');
  t.equal(providerKindOf(toProviderError(denied('admission-policy'), 'x')), 'invalid-input', 'a policy 403');
  t.equal(providerKindOf(toProviderError(denied(), 'x')), 'transient', 'an unnamed 403');
});
