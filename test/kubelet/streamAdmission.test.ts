/** Stream admission: the node, user and pod caps, and a ticket released once on every path. */
import fc from 'fast-check';
import t from 'tap';
import { StreamAdmission, type StreamTicket } from '../../src/kubelet/streamAdmission.js';

const admit = (a: StreamAdmission): StreamTicket => {
  const entry = a.enter();
  if (!entry.admitted) throw new Error(entry.message);
  return entry.ticket;
};

t.test('the node cap counts tickets from entry, before anyone is named', async (t) => {
  const a = new StreamAdmission('vk-1', { maxPerNode: 2, maxPerUser: 2, maxPerPod: 2 });
  const first = admit(a);
  admit(a);
  t.match(a.enter(), { admitted: false, scope: 'node', limit: 2, message: 'too many concurrent streams on node vk-1 (at most 2); try again later' });
  first.release();
  t.equal(a.active, 1);
  t.match(a.enter(), { admitted: true });
});

t.test('one user holds at most maxPerUser sessions; another user is not held up by them', async (t) => {
  const a = new StreamAdmission('vk-1', { maxPerNode: 10, maxPerUser: 2, maxPerPod: 10 });
  t.match(admit(a).claim('alice', 'shop/a'), { admitted: true });
  t.match(admit(a).claim('alice', 'shop/b'), { admitted: true });
  const third = admit(a);
  t.match(third.claim('alice', 'shop/c'), { admitted: false, scope: 'user', limit: 2, message: /too many concurrent streams for user alice on node vk-1 \(at most 2\)/ });
  third.release();
  t.match(admit(a).claim('bob', 'shop/a'), { admitted: true });
  t.equal(a.heldBy('alice'), 2);
  t.equal(a.active, 3, 'the refused ticket gave its node slot back');
});

t.test('one pod takes at most maxPerPod sessions; an uncounted user still counts against the pod', async (t) => {
  const a = new StreamAdmission('vk-1', { maxPerNode: 10, maxPerUser: 10, maxPerPod: 1 });
  const held = admit(a);
  t.match(held.claim(undefined, 'shop/web'), { admitted: true });
  t.match(admit(a).claim('alice', 'shop/web'), { admitted: false, scope: 'pod', message: /too many concurrent streams to pod shop\/web \(at most 1\)/ });
  t.equal(a.heldBy('alice'), 0, 'a refused claim holds nothing');
  held.release();
  t.match(admit(a).claim('alice', 'shop/web'), { admitted: true });
});

t.test('release is idempotent and a ticket is claimed once', async (t) => {
  const a = new StreamAdmission('vk-1');
  const ticket = admit(a);
  ticket.claim('alice', 'shop/web');
  ticket.release();
  ticket.release();
  t.equal(a.active, 0);
  t.equal(a.heldBy('alice'), 0);
  t.equal(a.heldOn('shop/web'), 0);
  t.throws(() => ticket.claim('alice', 'shop/web'));
});

t.test('property: any interleaving of entries, claims and (repeated) releases ends with nothing held', async () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('enter' as const) }),
    fc.record({ kind: fc.constant('claim' as const), ticket: fc.nat(20), user: fc.option(fc.constantFrom('alice', 'bob', 'carol'), { nil: undefined }), pod: fc.constantFrom('a/x', 'a/y', 'b/x') }),
    fc.record({ kind: fc.constant('release' as const), ticket: fc.nat(20) }),
  );
  fc.assert(fc.property(fc.array(op, { maxLength: 200 }), fc.integer({ min: 1, max: 5 }), (ops, cap) => {
    const a = new StreamAdmission('vk', { maxPerNode: cap * 2, maxPerUser: cap, maxPerPod: cap });
    const tickets: Array<{ ticket: StreamTicket; claimed: boolean }> = [];
    for (const o of ops) {
      if (o.kind === 'enter') {
        const entry = a.enter();
        if (entry.admitted) tickets.push({ ticket: entry.ticket, claimed: false });
        else if (a.active < cap * 2) return false;
      } else {
        const held = tickets[o.ticket % Math.max(1, tickets.length)];
        if (!held) continue;
        if (o.kind === 'release') held.ticket.release();
        else if (!held.claimed) {
          held.claimed = true;
          try {
            held.ticket.claim(o.user, o.pod);
          } catch {
            // claimed after release: refused, as it must be
          }
        }
      }
      if (a.active > cap * 2 || a.heldOn('a/x') > cap || a.heldBy('alice') > cap) return false;
    }
    for (const held of tickets) held.ticket.release();
    return a.active === 0 && a.heldBy('alice') === 0 && a.heldOn('a/x') === 0;
  }));
});
