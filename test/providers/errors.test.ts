import t from 'tap';
import { ApiException } from '@kubernetes/client-node';
import {
  ProviderError,
  classify,
  httpStatusOf,
  invalidInput,
  isClassified,
  isInvalidInput,
  isNotFound,
  isTransient,
  notFound,
  transient,
  type ErrorKind,
} from '../../src/providers/errors.js';

const apiError = (code: number, message = 'api error'): ApiException<string> =>
  new ApiException(code, message, '{"kind":"Status"}', {});

const cases: ReadonlyArray<{ name: string; err: unknown; kind: ErrorKind; classified: boolean }> = [
  { name: 'notFound()', err: notFound('no such pod'), kind: 'not-found', classified: true },
  { name: 'invalidInput()', err: invalidInput('bad image'), kind: 'invalid-input', classified: true },
  { name: 'transient()', err: transient('try later'), kind: 'transient', classified: true },
  { name: 'a plain Error', err: new Error('boom'), kind: 'transient', classified: false },
  { name: 'a string', err: 'boom', kind: 'transient', classified: false },
  { name: 'undefined', err: undefined, kind: 'transient', classified: false },
  { name: 'null', err: null, kind: 'transient', classified: false },
  {
    name: 'a plain Error whose message says "not found"',
    err: new Error('pod not found'),
    kind: 'transient',
    classified: false,
  },
  { name: 'a generic Error wrapping notFound', err: new Error('get failed', { cause: notFound('x') }), kind: 'not-found', classified: true },
  {
    name: 'three levels down',
    err: new Error('a', { cause: new Error('b', { cause: invalidInput('c') }) }),
    kind: 'invalid-input',
    classified: true,
  },
  {
    name: 'the outermost classification wins',
    err: transient('remote unavailable', { cause: notFound('inner') }),
    kind: 'transient',
    classified: true,
  },
  { name: 'ApiException 404', err: apiError(404), kind: 'not-found', classified: true },
  { name: 'ApiException 400', err: apiError(400), kind: 'invalid-input', classified: true },
  { name: 'ApiException 422', err: apiError(422), kind: 'invalid-input', classified: true },
  { name: 'ApiException 403 exceeded quota', err: apiError(403, 'exceeded quota: compute'), kind: 'transient', classified: true },
  { name: 'ApiException 409 AlreadyExists', err: apiError(409, 'already exists'), kind: 'transient', classified: true },
  { name: 'ApiException 429', err: apiError(429), kind: 'transient', classified: true },
  { name: 'ApiException 503', err: apiError(503), kind: 'transient', classified: true },
  { name: 'an ApiException 404 wrapped by an Error', err: new Error('wrap', { cause: apiError(404) }), kind: 'not-found', classified: true },
  { name: 'an object with statusCode 422', err: Object.assign(new Error('x'), { statusCode: 422 }), kind: 'invalid-input', classified: true },
  { name: 'a Node system error (string code)', err: Object.assign(new Error('reset'), { code: 'ECONNRESET' }), kind: 'transient', classified: false },
  { name: 'a numeric code outside HTTP range', err: Object.assign(new Error('x'), { code: 7 }), kind: 'transient', classified: false },
];

for (const c of cases) {
  void t.test(`${c.name} is ${c.kind}${c.classified ? '' : ' (by default)'}`, async (t) => {
    t.equal(classify(c.err), c.kind);
    t.equal(isClassified(c.err), c.classified);
    t.equal(isNotFound(c.err), c.kind === 'not-found');
    t.equal(isInvalidInput(c.err), c.kind === 'invalid-input');
    t.equal(isTransient(c.err), c.kind === 'transient');
  });
}

void t.test('a cyclic cause chain terminates and defaults to transient', async (t) => {
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  Object.defineProperty(a, 'cause', { value: b });
  t.equal(classify(a), 'transient');
  t.equal(isClassified(a), false);
});

void t.test('ProviderError keeps its message, name and cause', async (t) => {
  const cause = new Error('root');
  const err = notFound('pod ns/a not found', { cause });
  t.ok(err instanceof ProviderError);
  t.ok(err instanceof Error);
  t.equal(err.message, 'pod ns/a not found');
  t.equal(err.name, 'ProviderError');
  t.equal(err.cause, cause);
  t.equal(err.kind, 'not-found');
  t.equal(transient('x').cause, undefined);
});

void t.test('httpStatusOf reads code or statusCode', async (t) => {
  t.equal(httpStatusOf(apiError(404)), 404);
  t.equal(httpStatusOf({ statusCode: 500 }), 500);
  t.equal(httpStatusOf({ code: '404' }), undefined);
  t.equal(httpStatusOf(42), undefined);
});
