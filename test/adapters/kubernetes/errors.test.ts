import t from 'tap';
import { ApiException } from '@kubernetes/client-node';
import type { ApiErrorKind } from '../../../src/adapters/kubernetes/errors.js';
import {
  KubeApiError,
  classifyApiError,
  describeApiError,
  isApiErrorKind,
  toKubeApiError,
} from '../../../src/adapters/kubernetes/errors.js';
import { status } from './mockApiServer.js';

const api = (code: number, reason?: string, message = 'msg'): ApiException<string> =>
  new ApiException(code, 'Unknown API Status Code!', reason ? JSON.stringify(status(code, reason, message)) : '', {});

const netErr = (code: string): Error => Object.assign(new Error(`request failed, reason: connect ${code}`), { type: 'system', code, name: 'FetchError' });

const table: [string, unknown, ApiErrorKind][] = [
  ['404', api(404, 'NotFound'), 'notFound'],
  ['409 Conflict', api(409, 'Conflict'), 'conflict'],
  ['409 AlreadyExists', api(409, 'AlreadyExists'), 'alreadyExists'],
  ['400', api(400, 'BadRequest'), 'invalid'],
  ['422', api(422, 'Invalid'), 'invalid'],
  ['401 (client-node sends no body)', new ApiException(401, 'Unauthorized', undefined, {}), 'unauthorized'],
  ['403', api(403, 'Forbidden'), 'forbidden'],
  ['410', api(410, 'Expired'), 'gone'],
  ['429', api(429, 'TooManyRequests'), 'unavailable'],
  ['500', api(500, 'InternalError'), 'unavailable'],
  ['503 with no body', api(503), 'unavailable'],
  ['504', api(504, 'Timeout'), 'unavailable'],
  ['ECONNREFUSED', netErr('ECONNREFUSED'), 'unavailable'],
  ['ECONNRESET', netErr('ECONNRESET'), 'unavailable'],
  ['AbortError', Object.assign(new Error('The user aborted a request.'), { name: 'AbortError', type: 'aborted' }), 'unavailable'],
  ['watch HTTP error (statusCode)', Object.assign(new Error('Gone'), { statusCode: 410 }), 'gone'],
  ['a plain Error', new Error('bug'), 'unknown'],
  ['a string', 'what', 'unknown'],
  ['a KubeApiError wrapped as a cause', new Error('outer', { cause: toKubeApiError(api(404, 'NotFound'), 'get pod') }), 'notFound'],
  ['an ApiException as a cause', new Error('outer', { cause: api(409, 'Conflict') }), 'conflict'],
];

t.test('classification table', async (t) => {
  for (const [name, err, kind] of table) t.equal(classifyApiError(err).kind, kind, name);
});

t.test('the Status message and reason come from the JSON string body', async (t) => {
  const quota = 'pods "p" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=10, limited: pods=10';
  const info = classifyApiError(api(403, 'Forbidden', quota));
  t.same(info, { kind: 'forbidden', status: 403, reason: 'Forbidden', message: quota });
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
  t.equal(err.kind, 'notFound');
  t.equal(err.reason, 'NotFound');
  t.equal(err.cause, cause);
  t.equal(toKubeApiError(err, 'again'), err, 'not wrapped twice');
  t.ok(isApiErrorKind(err, 'notFound', 'gone'));
  t.notOk(isApiErrorKind(err, 'conflict'));
  t.ok(err instanceof KubeApiError);
});
