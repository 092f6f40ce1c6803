import { createHash } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { canonicalJson, fingerprint, fingerprintOf } from '../../src/lib/fingerprint.js';

/** The implementation before issue 28 (a sorted copy, then JSON.stringify): the digests must not change. */
function canonicalCopy(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(canonicalCopy);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) out[key] = canonicalCopy(field);
  }
  return out;
}
const before = (value: unknown): string => createHash('sha1').update(JSON.stringify(canonicalCopy(value))).digest('base64url');

void t.test('canonicalJson is the JSON of the sorted copy, so fingerprints are what they were', async (t) => {
  const cases: [string, unknown][] = [
    ['a status', { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(1_700_000_000_123) }], podIP: '10.0.0.1' }],
    ['undefined fields and array holes', { b: undefined, a: [undefined, 1, () => 1, Symbol('s')], c: () => 2 }],
    ['numeric keys, listed first in numeric order', { b: 1, 10: 'ten', 9: 'nine', a: { 2: 'x', 1: 'y', z: 0 } }],
    ['an own __proto__ key', JSON.parse('{"__proto__":{"x":1},"a":1}')],
    ['primitives', [null, 0, -0, NaN, Infinity, '', 'q"uote\n', true]],
    ['Map, Set and a class instance', { m: new Map([[1, 2]]), s: new Set([1]), u: new URL('http://x/'), e: new (class { v = 1; })() }],
    ['a bare string and number', 'text'],
  ];
  for (const [name, value] of cases) {
    t.equal(canonicalJson(value), JSON.stringify(canonicalCopy(value)), name);
    t.equal(fingerprint(value), before(value), `${name}: fingerprint`);
  }
  fc.assert(fc.property(fc.jsonValue(), fc.anything(), (json, anything) => {
    t.equal(canonicalJson(json), JSON.stringify(canonicalCopy(json)));
    const copy = (() => { try { return JSON.stringify(canonicalCopy(anything)); } catch { return 'throws'; } })();
    const mine = (() => { try { return canonicalJson(anything); } catch { return 'throws'; } })();
    if (copy !== mine) throw new Error(`differs on ${String(copy)} vs ${String(mine)}`);
  }), { numRuns: 300 });
});

void t.test('a value JSON leaves out has no fingerprint (it throws, as before)', async (t) => {
  t.throws(() => fingerprint(undefined));
  t.equal(canonicalJson(undefined), undefined);
});

/** An object whose `phase` counts its reads: a second fingerprint of it that reads it again was taken twice. */
function countingReads(): { value: object; reads: () => number } {
  let reads = 0;
  const value = Object.defineProperty({ conditions: [{ type: 'Ready', status: 'True' }] }, 'phase', {
    enumerable: true,
    get: () => (reads++, 'Running'),
  });
  return { value, reads: () => reads };
}

void t.test('fingerprintOf is the fingerprint, taken once per object', async (t) => {
  fc.assert(fc.property(fc.object(), (value) => fingerprintOf(value) === fingerprint(value) && fingerprintOf(value) === fingerprint(value)), { numRuns: 200 });
  const { value, reads } = countingReads();
  const first = fingerprintOf(value);
  t.equal(reads(), 1);
  t.equal(fingerprintOf(value), first);
  t.equal(reads(), 1, 'the second comparison is a lookup');
  t.equal(fingerprintOf(countingReads().value), first, 'an equal object compares equal');
});
