import t from 'tap';
import { ApiException } from '@kubernetes/client-node';
import { toKubeApiError } from '../../src/adapters/kubernetes/errors.js';
import { KindedError } from '../../src/lib/errorKind.js';
import {
  ProviderError,
  eventReasonOf,
  invalidInput,
  notFound,
  providerKindOf,
  transient,
  type ProviderErrorKind,
} from '../../src/providers/errors.js';

const apiError = (code: number, message = 'api error'): Error =>
  toKubeApiError(new ApiException(code, message, JSON.stringify({ kind: 'Status', code, message }), {}), 'call');

const cases: ReadonlyArray<{ name: string; err: unknown; kind: ProviderErrorKind | undefined }> = [
  { name: 'notFound()', err: notFound('no such pod'), kind: 'not-found' },
  { name: 'invalidInput()', err: invalidInput('bad image'), kind: 'invalid-input' },
  { name: 'transient()', err: transient('try later'), kind: 'transient' },
  { name: 'a plain Error', err: new Error('boom'), kind: undefined },
  { name: 'a string', err: 'boom', kind: undefined },
  { name: 'undefined', err: undefined, kind: undefined },
  { name: 'null', err: null, kind: undefined },
  { name: 'a plain Error whose message says "not found"', err: new Error('pod not found'), kind: undefined },
  { name: 'a generic Error wrapping notFound', err: new Error('get failed', { cause: notFound('x') }), kind: 'not-found' },
  { name: 'three levels down', err: new Error('a', { cause: new Error('b', { cause: invalidInput('c') }) }), kind: 'invalid-input' },
  { name: 'the outermost classification wins', err: transient('remote unavailable', { cause: notFound('inner') }), kind: 'transient' },
  { name: 'an API 404 (classified by the adapters)', err: apiError(404), kind: 'not-found' },
  { name: 'an API 400', err: apiError(400), kind: 'invalid-input' },
  { name: 'an API 422', err: apiError(422), kind: 'invalid-input' },
  { name: 'an API 403 exceeded quota', err: apiError(403, 'exceeded quota: compute'), kind: 'transient' },
  { name: 'an API 409 AlreadyExists', err: apiError(409, 'already exists'), kind: 'transient' },
  { name: 'an API 429', err: apiError(429), kind: 'transient' },
  { name: 'an API 503', err: apiError(503), kind: 'transient' },
  { name: 'an API 404 wrapped by an Error', err: new Error('wrap', { cause: apiError(404) }), kind: 'not-found' },
  { name: 'a raw ApiException (not through the adapters)', err: new ApiException(404, 'x', '', {}), kind: undefined },
  { name: 'an object with statusCode 422 (not through the adapters)', err: Object.assign(new Error('x'), { statusCode: 422 }), kind: undefined },
  { name: 'a Node system error (string code)', err: Object.assign(new Error('reset'), { code: 'ECONNRESET' }), kind: undefined },
];

for (const c of cases) {
  void t.test(`${c.name} is ${c.kind ?? 'unclassified (a bug)'}`, async (t) => {
    t.equal(providerKindOf(c.err), c.kind);
  });
}

void t.test('a cyclic cause chain terminates, unclassified', async (t) => {
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  Object.defineProperty(a, 'cause', { value: b });
  t.equal(providerKindOf(a), undefined);
});

void t.test('ProviderError keeps its message, name and cause, and is a kinded error', async (t) => {
  const cause = new Error('root');
  const err = notFound('pod ns/a not found', { cause });
  t.ok(err instanceof ProviderError);
  t.ok(err instanceof KindedError);
  t.equal(err.message, 'pod ns/a not found');
  t.equal(err.name, 'ProviderError');
  t.equal(err.cause, cause);
  t.equal(err.kind, 'not-found');
  t.equal(transient('x').cause, undefined);
});

void t.test('the Event reason is the outermost one in the chain', async (t) => {
  const inner = invalidInput('missing', { reason: 'MandatoryConfigMapNotFound' });
  t.equal(eventReasonOf(new Error('wrap', { cause: inner })), 'MandatoryConfigMapNotFound');
  t.equal(eventReasonOf(transient('x')), undefined);
});
