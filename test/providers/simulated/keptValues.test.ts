import t from 'tap';
import { KeptValues } from '../../../src/providers/simulated/keptValues.js';
import { simulatedImageID } from '../../../src/providers/simulated/podLifecycle.js';

t.test('a kept value is computed once for every caller of its key (pods of one image share one image ID)', async (t) => {
  const computed: string[] = [];
  const ids = new KeptValues(2, (image) => {
    computed.push(image);
    return { id: `${image}@sha256:x` };
  });
  const first = ids.get('busybox');
  t.equal(ids.get('busybox'), first, 'the second caller gets the same object');
  t.same(computed, ['busybox']);
  t.equal(simulatedImageID('registry.k8s.io/pause:3.10'), simulatedImageID('registry.k8s.io/pause:3.10'));
  t.match(simulatedImageID('registry.k8s.io/pause:3.10'), /^registry\.k8s\.io\/pause@sha256:[0-9a-f]{64}$/);
});

t.test('past its limit the oldest computed key goes, and is computed again when asked', async (t) => {
  const computed: string[] = [];
  const ids = new KeptValues(2, (image) => {
    computed.push(image);
    return image.length;
  });
  ids.get('a');
  ids.get('bb');
  ids.get('ccc');
  t.equal(ids.size, 2, 'never more than the limit');
  t.equal(ids.get('bb'), 2);
  t.equal(ids.get('a'), 1);
  t.same(computed, ['a', 'bb', 'ccc', 'a'], '"a" went first and was computed again; "bb" was kept');
});
