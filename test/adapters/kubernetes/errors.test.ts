import t from 'tap';
import { ApiException } from '@kubernetes/client-node';
import fc from 'fast-check';
import {
  KubeApiError,
  classifyApiError,
  describeApiError,
  kindOfStatus,
  toKubeApiError,
} from '../../../src/adapters/kubernetes/errors.js';
import { isKind, kindOf, KindedError, type ErrorKind } from '../../../src/lib/errorKind.js';
import { DeadlineExceededError } from '../../../src/lib/callWithDeadline.js';
import { status } from './mockApiServer.js';

const api = (code: number, reason?: string, message = 'msg'): ApiException<string> =>
  new ApiException(code, 'Unknown API Status Code!', reason ? JSON.stringify(status(code, reason, message)) : '', {});

const netErr = (code: string): Error => Object.assign(new Error(`request failed, reason: connect ${code}`), { type: 'system', code, name: 'FetchError' });

const table: [string, unknown, ErrorKind | undefined][] = [
  ['404', api(404, 'NotFound'), 'not-found'],
  ['409 Conflict', api(409, 'Conflict'), 'conflict'],
  ['409 AlreadyExists', api(409, 'AlreadyExists'), 'already-exists'],
  ['400', api(400, 'BadRequest'), 'invalid-input'],
  ['422', api(422, 'Invalid'), 'invalid-input'],
  ['401 (client-node sends no body)', new ApiException(401, 'Unauthorized', undefined, {}), 'unauthorized'],
  ['403', api(403, 'Forbidden'), 'forbidden'],
  ['410', api(410, 'Expired'), 'gone'],
  ['429', api(429, 'TooManyRequests'), 'transient'],
  ['500', api(500, 'InternalError'), 'transient'],
  ['503 with no body', api(503), 'transient'],
  ['504', api(504, 'Timeout'), 'transient'],
  ['ECONNREFUSED', netErr('ECONNREFUSED'), 'transient'],
  ['ECONNRESET', netErr('ECONNRESET'), 'transient'],
  ['AbortError', Object.assign(new Error('The user aborted a request.'), { name: 'AbortError', type: 'aborted' }), 'transient'],
  ['watch HTTP error (statusCode)', Object.assign(new Error('Gone'), { statusCode: 410 }), 'gone'],
  ['a plain Error', new Error('bug'), undefined],
  ['a string', 'what', undefined],
  ['a deadline', new DeadlineExceededError(5000), 'transient'],
  ['a fence (classified where it was raised)', new KindedError('transient', 'writes fenced: lock lost'), 'transient'],
  ['405 (no kind of its own)', api(405, 'MethodNotAllowed'), 'transient'],
  ['a KubeApiError wrapped as a cause', new Error('outer', { cause: toKubeApiError(api(404, 'NotFound'), 'get pod') }), 'not-found'],
  ['an ApiException as a cause', new Error('outer', { cause: api(409, 'Conflict') }), 'conflict'],
];

t.test('classification table', async (t) => {
  for (const [name, err, kind] of table) t.equal(classifyApiError(err).kind, kind, name);
});

t.test('the Status message and reason come from the JSON string body', async (t) => {
  const quota = 'pods "p" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=10, limited: pods=10';
  const info = classifyApiError(api(403, 'Forbidden', quota));
  t.same(info, { kind: 'forbidden', status: 403, reason: 'Forbidden', message: quota, denial: 'quota-exceeded' });
  t.equal(describeApiError(api(403, 'Forbidden', quota)), `403 Forbidden: ${quota}`);
  t.equal(describeApiError(netErr('ECONNREFUSED')), 'unavailable: request failed, reason: connect ECONNREFUSED');
  t.equal(describeApiError(api(503)), '503: HTTP 503');
  const multi = new ApiException(500, 'x', 'line one\nline two', {});
  t.equal(describeApiError(multi), '500: line one', 'a non-JSON body gives its first line');
  t.notMatch(describeApiError(api(404, 'NotFound', 'pods "x" not found')), /\n/);
});

t.test('retry-after comes from the header or the Status details', async (t) => {
  const withHeader = new ApiException(429, 'x', JSON.stringify(status(429, 'TooManyRequests', 'slow down')), { 'retry-after': '3' });
  t.equal(classifyApiError(withHeader).retryAfterSeconds, 3);
  const body = { ...status(500, 'InternalError', 'later'), details: { retryAfterSeconds: 7 } };
  t.equal(classifyApiError(new ApiException(500, 'x', JSON.stringify(body), {})).retryAfterSeconds, 7);
});

t.test('KubeApiError names the operation and keeps the cause', async (t) => {
  const cause = api(404, 'NotFound', 'pods "p" not found');
  const err = toKubeApiError(cause, 'get pod ns/p');
  t.equal(err.message, 'get pod ns/p: pods "p" not found');
  t.equal(err.kind, 'not-found');
  t.equal(err.reason, 'NotFound');
  t.equal(err.cause, cause);
  t.equal(toKubeApiError(err, 'again'), err, 'not wrapped twice');
  t.ok(isKind(err, 'not-found', 'gone'));
  t.notOk(isKind(err, 'conflict'));
  t.ok(err instanceof KubeApiError);
});

t.test('a bug wrapped at the boundary stays unclassified: kindOf is undefined, so callers crash', async (t) => {
  const err = toKubeApiError(new TypeError('cannot read properties of undefined'), 'get pod ns/p');
  t.ok(err instanceof KubeApiError, 'still the adapters\' error type');
  t.equal(err.kind, undefined);
  t.equal(kindOf(err), undefined);
  t.equal(kindOf(new Error('outer', { cause: err })), undefined);
  t.equal(describeApiError(err), 'unknown: get pod ns/p: cannot read properties of undefined');
});

t.test('the kind of an API failure is decided by its status code and Status reason, never by its message text', async (t) => {
  const statuses = fc.integer({ min: 100, max: 599 });
  const reasons = fc.constantFrom(undefined, 'NotFound', 'AlreadyExists', 'Conflict', 'Invalid', 'Forbidden', 'Expired');
  fc.assert(fc.property(statuses, reasons, fc.string(), fc.string(), (code, reason, message, exceptionText) => {
    const body = reason === undefined ? message : JSON.stringify(status(code, reason, message));
    const thrown = new ApiException(code, exceptionText, body, {});
    const expected = kindOfStatus(code, reason);
    return classifyApiError(thrown).kind === expected && kindOf(toKubeApiError(thrown, 'op')) === expected;
  }));
  // A message that names another class does not change the class.
  t.equal(kindOf(toKubeApiError(api(503, 'ServiceUnavailable', 'pods "x" not found'), 'op')), 'transient');
  t.equal(kindOf(toKubeApiError(api(404, 'NotFound', 'exceeded quota; try again later'), 'op')), 'not-found');
});

t.test('a plain error is never classified by what its message says', async () => {
  fc.assert(fc.property(fc.string(), (message) => kindOf(toKubeApiError(new Error(message), 'op')) === undefined));
});
