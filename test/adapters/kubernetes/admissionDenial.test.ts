/**
 * A 403 names the check that refused it (`denial`), read once at the adapter boundary from the
 * Status bodies kube-apiserver v1.36.3 really sends (fixtures/admissionDenials.json, recorded
 * against the standing remote cluster).
 */
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiException } from '@kubernetes/client-node';
import fc from 'fast-check';
import { ADMISSION_DENIALS, admissionDenialOf } from '../../../src/adapters/kubernetes/admissionDenial.js';
import { classifyApiError, toKubeApiError } from '../../../src/adapters/kubernetes/errors.js';

interface RecordedStatus { readonly code: number; readonly message: string; readonly reason: string; readonly details: Record<string, unknown> }
const here = path.dirname(fileURLToPath(import.meta.url));
const recorded = JSON.parse(fs.readFileSync(path.join(here, 'fixtures', 'admissionDenials.json'), 'utf8')) as Record<string, RecordedStatus>;

function answer(name: string): ApiException<string> {
  const body = recorded[name];
  if (!body) throw new Error(`no fixture ${name}`);
  return new ApiException(body.code, `HTTP-Code: ${body.code}\nMessage: Unknown API Status Code!`, JSON.stringify(body), {});
}

t.test('each recorded 403 from v1.36.3 names the check that refused it', async (t) => {
  for (const denial of ['pod-security', 'quota-exceeded', 'quota-requires', 'limit-range', 'authorization'] as const) {
    const info = classifyApiError(answer(denial));
    t.equal(info.status, 403, `${denial}: 403`);
    t.equal(info.reason, 'Forbidden', `${denial}: reason Forbidden, the same for all of them`);
    t.equal(info.kind, 'forbidden', `${denial}: kind`);
    t.equal(info.denial, denial, `${denial}: named`);
  }
});

t.test('a KubeApiError carries the denial, so it survives wrapping', async (t) => {
  const err = toKubeApiError(answer('pod-security'), 'create pod t/web');
  t.equal(err.denial, 'pod-security');
  t.equal(classifyApiError(new Error('outer', { cause: err })).denial, 'pod-security');
});

t.test('a ValidatingAdmissionPolicy denial is 422 Invalid (structural): invalid-input, no denial needed', async (t) => {
  const info = classifyApiError(answer('admission-policy-invalid'));
  t.equal(info.status, 422);
  t.equal(info.kind, 'invalid-input');
  t.equal(info.denial, undefined);
});

t.test('a webhook or policy refusing with 403 is named (bodies as ToStatusErr and the policy dispatcher build them)', async (t) => {
  const webhook = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403, reason: 'Forbidden', message: 'admission webhook "policy.example.com" denied the request: registry not allowed' };
  const policy = { ...webhook, message: 'pods "web" is forbidden: ValidatingAdmissionPolicy \'no-latest\' with binding \'b\' denied request: tag latest', details: { name: 'web', kind: 'pods' } };
  t.equal(classifyApiError(new ApiException(403, '', JSON.stringify(webhook), {})).denial, 'webhook');
  t.equal(classifyApiError(new ApiException(403, '', JSON.stringify(policy), {})).denial, 'admission-policy');
});

t.test('a LimitRange ratio refusal is a limit-range denial too', async (t) => {
  t.equal(admissionDenialOf({ message: 'pods "web" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000', detailsKind: 'pods', detailsName: 'web' }), 'limit-range');
});

t.test('an admission 403 the matcher does not know stays unnamed, and other statuses are never read for words', async (t) => {
  t.equal(admissionDenialOf({ message: 'pods "web" is forbidden: insufficient quota to consume: cpu', detailsKind: 'pods', detailsName: 'web' }), undefined);
  const notFound = { kind: 'Status', code: 404, reason: 'NotFound', message: 'violates PodSecurity "restricted"', details: { kind: 'pods' } };
  t.equal(classifyApiError(new ApiException(404, '', JSON.stringify(notFound), {})).denial, undefined, 'a 404 is not read for words');
  t.equal(classifyApiError(new ApiException(403, '', '', {})).denial, undefined, 'a 403 with no Status body');
});

t.test('the matcher is total: any message and details give a known denial or none', async (t) => {
  const optional = fc.option(fc.string(), { nil: undefined });
  t.doesNotThrow(() => fc.assert(fc.property(fc.string(), optional, optional, (message, detailsKind, detailsName) => {
    const denial = admissionDenialOf({ message, ...(detailsKind === undefined ? {} : { detailsKind }), ...(detailsName === undefined ? {} : { detailsName }) });
    return denial === undefined || (ADMISSION_DENIALS as readonly string[]).includes(denial);
  })), 'total');
  t.doesNotThrow(() => fc.assert(fc.property(fc.string(), fc.string({ minLength: 1 }), (message, detailsName) => {
    const plain = message.replace(/PodSecurity|quota|usage per|ratio per|denied|cannot/g, '');
    return admissionDenialOf({ message: plain, detailsKind: 'pods', detailsName }) === undefined;
  })), 'a named object and none of the phrases: unnamed');
});
