import t from 'tap';
import { statusPatchBody } from '../../../src/adapters/kubernetes/statusPatch.js';

t.test('the address lists of a status patch carry the replace directive first', async (t) => {
  const body = statusPatchBody({ phase: 'Running', podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }], hostIPs: [{ ip: '192.168.0.1' }] });
  t.same(body.podIPs, [{ $patch: 'replace' }, { ip: '10.0.0.1' }]);
  t.same(body.hostIPs, [{ $patch: 'replace' }, { ip: '192.168.0.1' }]);
  t.equal(body.phase, 'Running', 'other fields pass as they are');
});

t.test('an empty address list clears the stored one; an absent one leaves it', async (t) => {
  t.same(statusPatchBody({ podIPs: [] }).podIPs, [{ $patch: 'replace' }]);
  t.notOk('hostIPs' in statusPatchBody({ phase: 'Pending' }));
});
