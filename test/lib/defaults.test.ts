import fc from 'fast-check';
import t from 'tap';
import { definedOnly, ifDefined, when, withDefaults } from '../../src/lib/defaults.js';

const record = fc.dictionary(fc.string({ maxLength: 6 }).filter((k) => k !== '__proto__'), fc.option(fc.anything(), { nil: undefined }));

void t.test('definedOnly leaves out exactly the undefined fields, in their order, and keeps falsy values', async (t) => {
  t.strictSame(definedOnly({ a: 0, b: undefined, c: '', d: false, e: null }), { a: 0, c: '', d: false, e: null });
  t.strictSame(Object.keys(definedOnly({ z: 1, b: undefined, a: 2 })), ['z', 'a']);
  t.strictSame(definedOnly(undefined), {});
  fc.assert(fc.property(record, (value) => {
    const out = definedOnly(value);
    const kept = Object.entries(value).filter(([, v]) => v !== undefined);
    return Object.values(out).every((v) => v !== undefined) && JSON.stringify(Object.keys(out)) === JSON.stringify(kept.map(([k]) => k))
      && kept.every(([k, v]) => Object.is((out as Record<string, unknown>)[k], v));
  }));
});

void t.test('a field left undefined does not override a default', async (t) => {
  t.strictSame(withDefaults({ minMs: 1, maxMs: 2 }, { minMs: undefined, maxMs: 5 }), { minMs: 1, maxMs: 5 });
  t.strictSame(withDefaults({ minMs: 1, maxMs: 2 }, undefined), { minMs: 1, maxMs: 2 });
});

void t.test('ifDefined maps a value and passes no value on; when gives its fields only when the condition holds', async (t) => {
  t.equal(ifDefined(2, (n) => n * 10), 20);
  t.equal(ifDefined(0, (n) => n + 1), 1, 'a falsy value is a value');
  t.equal(ifDefined(undefined as number | undefined, (n) => n * 10), undefined);
  let called = 0;
  t.same({ a: 1, ...when(false, () => ({ b: ++called })) }, { a: 1 });
  t.equal(called, 0, 'the fields are not computed when the condition fails');
  t.same({ a: 1, ...when(true, () => ({ b: ++called })) }, { a: 1, b: 1 });
});
