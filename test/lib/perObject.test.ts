import t from 'tap';
import { perObject } from '../../src/lib/perObject.js';

void t.test('perObject computes once per object, and again for another object', async (t) => {
  const seen: object[] = [];
  const sizeOf = perObject((value: { items: readonly number[] }) => (seen.push(value), value.items.length));
  const a = { items: [1, 2] };
  const b = { items: [1, 2, 3] };
  t.equal(sizeOf(a), 2);
  t.equal(sizeOf(a), 2);
  t.equal(sizeOf(b), 3);
  t.equal(seen.length, 2, 'a once, b once');
  t.ok(seen[0] === a && seen[1] === b);
});
