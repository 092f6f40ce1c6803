import t from 'tap';
import fc from 'fast-check';
import { ERROR_KINDS, httpStatusFor, isKind, KindedError, kindOf, type ErrorKind } from '../../src/lib/errorKind.js';

const kinds = fc.constantFrom(...ERROR_KINDS);

t.test('kindOf walks the cause chain, outermost kind first', async (t) => {
  const inner = new KindedError('not-found', 'inner');
  t.equal(kindOf(inner), 'not-found');
  t.equal(kindOf(new Error('a', { cause: new Error('b', { cause: inner }) })), 'not-found');
  t.equal(kindOf(new KindedError('transient', 'outer', { cause: inner })), 'transient');
  t.equal(kindOf(new KindedError(undefined, 'a wrapper that could not tell', { cause: inner })), 'not-found', 'an unkinded wrapper is looked past');
});

t.test('an error with no kind anywhere in its chain is unclassified', async (t) => {
  for (const err of [new Error('boom'), new TypeError('x'), 'text', undefined, null, 42, { kind: 'not-found' }]) t.equal(kindOf(err), undefined);
  t.equal(kindOf(new KindedError(undefined, 'x', { cause: new Error('y') })), undefined);
  const a = new Error('a');
  Object.defineProperty(a, 'cause', { value: new Error('b', { cause: a }) });
  t.equal(kindOf(a), undefined, 'a cyclic chain ends');
});

t.test('kindOf never reads message text: any message yields the same kind at any depth', async () => {
  fc.assert(fc.property(kinds, fc.string(), fc.string(), fc.nat({ max: 5 }), (kind, inner, outer, depth) => {
    let err: Error = new KindedError(kind, inner);
    for (let i = 0; i < depth; i++) err = new Error(outer, { cause: err });
    return kindOf(err) === kind;
  }));
  fc.assert(fc.property(fc.string(), (message) => kindOf(new Error(message)) === undefined));
});

t.test('isKind is true only for the kinds named', async (t) => {
  const err = new Error('w', { cause: new KindedError('conflict', 'x') });
  t.ok(isKind(err, 'not-found', 'conflict'));
  t.notOk(isKind(err, 'not-found'));
  t.notOk(isKind(new Error('conflict'), 'conflict'));
});

t.test('httpStatusFor is total over the kinds and answers an HTTP error status for each', async (t) => {
  const expected: Record<ErrorKind, number> = {
    'not-found': 404, 'already-exists': 409, conflict: 409, 'invalid-input': 400, unauthorized: 401, forbidden: 403, gone: 410, transient: 503,
  };
  for (const kind of ERROR_KINDS) t.equal(httpStatusFor(kind), expected[kind], kind);
  fc.assert(fc.property(kinds, (kind) => {
    const status = httpStatusFor(kind);
    return Number.isInteger(status) && status >= 400 && status <= 599;
  }));
});
