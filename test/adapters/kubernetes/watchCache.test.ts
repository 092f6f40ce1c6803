import t from 'tap';
import { WatchCache, type Versioned } from '../../../src/adapters/kubernetes/watchCache.js';

const obj = (name: string, uid: string, rv: string): Versioned => ({ metadata: { namespace: 'ns', name, uid, resourceVersion: rv } });

t.test('a list older than a re-creation never brings the old object back', async (t) => {
  const cache = new WatchCache<Versioned>();
  cache.upsert(obj('db-0', 'old', '10'));
  cache.remove(obj('db-0', 'old', '11'));
  cache.upsert(obj('db-0', 'new', '12'));
  // A resync list taken before the re-creation still shows the old pod.
  const changes = cache.replace([obj('db-0', 'old', '10')], '11');
  t.same(changes, [], 'no delete of the new object, no add of the old one');
  t.equal(cache.get('ns/db-0')?.metadata?.uid, 'new');
});

t.test('a list newer than the cached object replaces it, re-created or not', async (t) => {
  const cache = new WatchCache<Versioned>();
  cache.upsert(obj('db-0', 'old', '10'));
  const changes = cache.replace([obj('db-0', 'new', '20')], '21');
  t.same(changes.map((c) => `${c.type}:${c.object.metadata?.uid}`), ['deleted:old', 'added:new']);
  t.same(cache.replace([obj('db-0', 'new', '22')], '23').map((c) => c.type), ['updated']);
});

t.test('a list drops what it does not hold, unless the cached copy is newer than the list', async (t) => {
  const cache = new WatchCache<Versioned>();
  cache.upsert(obj('a', 'ua', '5'));
  cache.upsert(obj('b', 'ub', '30'));
  const changes = cache.replace([], '20');
  t.same(changes.map((c) => `${c.type}:${c.object.metadata?.name}`), ['deleted:a']);
  t.ok(cache.get('ns/b'), 'b arrived after the snapshot');
});

t.test('a DELETED without a uid reports the object the cache had, uid included: readers key by uid', async (t) => {
  const cache = new WatchCache<Versioned>();
  cache.upsert(obj('db-0', 'u0', '10'));
  const changes = cache.remove({ metadata: { namespace: 'ns', name: 'db-0', resourceVersion: '11' } });
  t.same(changes.map((c) => `${c.type}:${c.object.metadata?.uid}`), ['deleted:u0']);
  t.equal(cache.get('ns/db-0'), undefined);
});
