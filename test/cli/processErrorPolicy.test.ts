/**
 * The process-level policy of `tether run`: an uncaught exception or unhandled rejection is
 * logged and counted and the process lives on; only a failed invariant (an assertion) ends it.
 * The decision as a pure function. (The handlers installed in a real child process:
 * test/e2e/processErrorPolicy.test.ts.)
 */
import { AssertionError, strict as assert } from 'node:assert';
import fc from 'fast-check';
import t from 'tap';
import { decideUncaught, describeError } from '../../src/cli/processErrorPolicy.js';

const thrown = (fn: () => void): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
};

t.test('what a client could provoke continues: parse errors, socket errors, type errors, non-errors', async (t) => {
  const cases: unknown[] = [
    thrown(() => new URL('//', 'https://kubelet')),
    thrown(() => decodeURIComponent('%zz')),
    Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    Object.assign(new Error('Parse Error: Invalid method encountered'), { code: 'HPE_INVALID_METHOD' }),
    new TypeError("Cannot read properties of undefined (reading 'x')"),
    thrown(() => JSON.parse('{')),
    new RangeError('Maximum call stack size exceeded'),
    'a string',
    undefined,
    { code: 42 },
  ];
  for (const error of cases) {
    t.same(decideUncaught('uncaughtException', error), { action: 'continue' }, String(error));
    t.same(decideUncaught('unhandledRejection', error), { action: 'continue' });
  }
});

t.test('a failed invariant exits: node:assert, and Node\'s own internal assertions', async (t) => {
  const assertion = thrown(() => assert.equal(1, 2));
  t.ok(assertion instanceof AssertionError);
  t.match(decideUncaught('uncaughtException', assertion), { action: 'exit', why: /an invariant failed \(ERR_ASSERTION\)/ });
  t.match(decideUncaught('unhandledRejection', Object.assign(new Error('internal'), { code: 'ERR_INTERNAL_ASSERTION' })), { action: 'exit' });
});

t.test('property: only the invariant codes exit', async () => {
  fc.assert(fc.property(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }), (message, code) => {
    const decision = decideUncaught('uncaughtException', Object.assign(new Error(message), { code }));
    return (decision.action === 'exit') === (code === 'ERR_ASSERTION' || code === 'ERR_INTERNAL_ASSERTION');
  }));
});

t.test('an error is described by name, code, message and the head of its stack, bounded', async (t) => {
  t.match(describeError(Object.assign(new Error('x'.repeat(5_000)), { code: 'E1' })), { name: 'Error', code: 'E1', message: /^x{1000}$/, stack: /^Error: x/ });
  t.same(describeError(7), { thrown: 'number', value: '7' });
});
