/** $((...)): precedence, variables, assignments, errors. */
import fc from 'fast-check';
import t from 'tap';
import { evaluateArithmetic } from '../../../../src/providers/simulated/shell/arithmetic.js';

const scope = (vars: Record<string, string> = {}): { get: (n: string) => string | undefined; set: (n: string, v: string) => void } => ({
  get: (n) => (Object.hasOwn(vars, n) ? vars[n] : undefined),
  set: (n, v) => void (vars[n] = v),
});

t.test('precedence, parentheses, comparisons, logic and ?:', async (t) => {
  t.same(evaluateArithmetic('1 + 2 * 3', scope()), { value: 7 });
  t.same(evaluateArithmetic('(1 + 2) * 3', scope()), { value: 9 });
  t.same(evaluateArithmetic('7 / 2 + 7 % 2 - -1', scope()), { value: 5 });
  t.same(evaluateArithmetic('2 > 1 && 0 || !0', scope()), { value: 1 });
  t.same(evaluateArithmetic('x ? 10 : 20', scope({ x: '0' })), { value: 20 });
});

t.test('variables by name (unset is 0) and assignments', async (t) => {
  const vars: Record<string, string> = { n: '4' };
  t.same(evaluateArithmetic('n * 2 + missing', scope(vars)), { value: 8 });
  t.same(evaluateArithmetic('n += 3', scope(vars)), { value: 7 });
  t.equal(vars.n, '7');
});

t.test('errors are answers: division by zero, a bad token, a bad value', async (t) => {
  t.same(evaluateArithmetic('1 / 0', scope()), { error: 'division by zero' });
  t.match(evaluateArithmetic('1 $ 2', scope()), { error: /syntax error/ });
  t.match(evaluateArithmetic('x + 1', scope({ x: 'abc' })), { error: /bad number/ });
});

t.test('evaluating never throws, whatever the text', async (t) => {
  fc.assert(fc.property(fc.string({ maxLength: 40 }), (text) => {
    const result = evaluateArithmetic(text, scope());
    return 'value' in result || typeof result.error === 'string';
  }), { numRuns: 2000 });
  t.pass();
});
