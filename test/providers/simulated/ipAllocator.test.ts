import t from 'tap';
import { IpAllocator, formatIPv4 } from '../../../src/providers/simulated/ipAllocator.js';

void t.test('addresses start after the gateway and skip network and broadcast', async (t) => {
  const ips = new IpAllocator('10.244.0.0/30');
  t.equal(ips.size, 1);
  t.equal(ips.allocate(), '10.244.0.2');
  t.throws(() => ips.allocate(), { name: 'ProviderError', message: /exhausted/ });
});

void t.test('a CIDR with host bits set is normalised to its network', async (t) => {
  const ips = new IpAllocator('10.244.1.77/24');
  t.equal(ips.allocate(), '10.244.1.2');
  t.equal(ips.size, 253);
});

void t.test('released addresses are reused only after the range wraps', async (t) => {
  const ips = new IpAllocator('192.168.0.0/29'); // .2 to .6
  t.same([ips.allocate(), ips.allocate()], ['192.168.0.2', '192.168.0.3']);
  ips.release('192.168.0.2');
  t.same([ips.allocate(), ips.allocate(), ips.allocate()], ['192.168.0.4', '192.168.0.5', '192.168.0.6']);
  t.equal(ips.allocate(), '192.168.0.2', 'wraps to the released address');
  t.equal(ips.inUse, 5);
  t.throws(() => ips.allocate());
  ips.release('192.168.0.5');
  ips.release('not-an-ip');
  t.equal(ips.allocate(), '192.168.0.5');
});

void t.test('a /16 holds ten thousand pods with distinct addresses', async (t) => {
  const ips = new IpAllocator('10.244.0.0/16');
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i++) seen.add(ips.allocate());
  t.equal(seen.size, 10_000);
  t.ok(seen.has('10.244.1.1'), 'crosses octet boundaries');
});

for (const bad of ['10.244.0.0', '10.244.0.0/31', '10.244.0.0/7', '10.244.0/16', '300.0.0.0/16', 'fd00::/64', '10.0.0.x/16']) {
  void t.test(`${bad} is rejected as invalid input`, async (t) => {
    t.throws(() => new IpAllocator(bad), { name: 'ProviderError', message: /invalid pod CIDR/ });
  });
}

void t.test('formatIPv4 writes dotted quads', async (t) => {
  t.equal(formatIPv4(0xffffffff), '255.255.255.255');
  t.equal(formatIPv4(0x0a000001), '10.0.0.1');
});
