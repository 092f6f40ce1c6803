/**
 * What the Service reflector remembers about copies it could not write stays bounded by what is
 * wanted: an object the remote refused (422), a taken name and a copy that lost its marks are
 * forgotten once their namespace's pass no longer wants them.
 */
import t from 'tap';
import { RefusedNames } from '../../../../src/providers/kubernetes/serviceReflection/refusedNames.js';

void t.test('refusals of objects a pass no longer wants are pruned: the memory stays bounded', async (t) => {
  const refused = new RefusedNames();
  for (let i = 0; i < 100; i++) {
    refused.rejectedByRemote(`shop-home/Service/dual-${i}`, `d${i}`);
    refused.nameTaken(`shop-home/Service/taken-${i}`, `d${i}`);
    refused.notOwned.first('Service', `Service/shop-home/lost-${i}`, `u${i}`);
  }
  refused.rejectedByRemote('other-home/Service/kept', 'd');
  t.equal(refused.size, 100 * 4 + 1, 'rejected, taken, warned, not owned');
  refused.prune('shop-home', new Set(['Service/dual-7']));
  t.same(refused.refusedIn('shop-home'), new Map([['Service/dual-7', 'd7']]), 'only the wanted one is still refused');
  t.equal(refused.size, 2, 'and the other namespace\'s entry');
  t.equal(refused.notOwned.totals().get('Service'), 100, 'the counter for /metrics is a total, not memory per object');
});

void t.test('a taken name asks for a Warning the first time and when its digest changes only', async (t) => {
  const refused = new RefusedNames();
  t.ok(refused.nameTaken('shop-home/Service/web', 'd1'));
  refused.forgetTaken(); // a resync
  t.notOk(refused.nameTaken('shop-home/Service/web', 'd1'), 'the same refusal again: no Warning');
  t.ok(refused.nameTaken('shop-home/Service/web', 'd2'), 'the host Service changed: a Warning');
  refused.written('Service', 'shop-home/Service/web');
  t.ok(refused.nameTaken('shop-home/Service/web', 'd2'), 'taken again after it was written: a Warning');
});
