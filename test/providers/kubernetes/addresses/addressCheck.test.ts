/**
 * The start check of address safety (addresses/addressCheck.ts) as a table: overlapping pod
 * CIDRs refuse the node with one error naming it, both CIDRs and the config fields, unless
 * blankPodIPs or a remap hook is set; an unknown pod CIDR warns, or refuses when told to.
 * And the endpoint rule: host addresses inside the remote's own CIDRs are never copied.
 */
import t from 'tap';
import { checkAddresses, type AddressPolicy } from '../../../../src/providers/kubernetes/addresses/addressCheck.js';
import { configured, learned, type ClusterNetworks, type KnownCidrs } from '../../../../src/providers/kubernetes/addresses/clusterNetworks.js';
import { copiedHostAddress, remoteOwnCidrs } from '../../../../src/providers/kubernetes/addresses/endpointAddresses.js';

const known = (...cidrs: string[]): KnownCidrs => learned(cidrs, 'Node spec.podCIDRs', 'none');
const unknown: KnownCidrs = { known: false, why: 'no Node has spec.podCIDRs' };
const nets = (pods: KnownCidrs, services: KnownCidrs = known('10.96.0.0/12')): ClusterNetworks => ({ pods, services });
const policy = (over: Partial<AddressPolicy> = {}): AddressPolicy => ({ nodeName: 'vk', blankPodIPs: false, remapped: false, ...over });

void t.test('pod CIDRs: disjoint start, overlapping refuse with one error, blankPodIPs or a remap hook start with a note', async (t) => {
  const host = nets(known('10.244.0.0/16'));
  t.same(checkAddresses(host, nets(known('10.88.0.0/16')), policy()), [], 'disjoint: nothing to say');

  const refused = checkAddresses(host, nets(known('10.244.3.0/24')), policy());
  t.equal(refused.length, 1, 'one error');
  t.equal(refused[0]?.level, 'refuse');
  t.match(refused[0]?.message, /^node vk: the remote pod CIDR 10\.244\.3\.0\/24 \(Node spec\.podCIDRs\) overlaps the host pod CIDR 10\.244\.0\.0\/16 .*provider\.blankPodIPs: true.*provider\.networks\.hostPodCIDRs \/ remotePodCIDRs/);

  t.same(checkAddresses(host, nets(known('10.244.3.0/24')), policy({ blankPodIPs: true })).map((f) => f.level), ['note']);
  t.match(checkAddresses(host, nets(known('10.244.3.0/24')), policy({ remapped: true }))[0]?.message, /handled by the address remap hook/);
});

void t.test('a remote pod CIDR over the host Service CIDR refuses too (host pods would report ClusterIPs)', async (t) => {
  const found = checkAddresses(nets(known('10.244.0.0/16'), known('10.96.0.0/12')), nets(known('10.100.0.0/16')), policy());
  t.match(found, [{ level: 'refuse', message: /remote pod CIDR 10\.100\.0\.0\/16 .* overlaps the host Service CIDR 10\.96\.0\.0\/12/ }]);
});

void t.test('unknown pod CIDRs warn by default, refuse with unknownCIDRs: refuse, and say nothing with blankPodIPs', async (t) => {
  const warned = checkAddresses(nets(unknown), nets(known('10.88.0.0/16')), policy());
  t.match(warned, [{ level: 'warn', message: /^node vk: cannot tell .* the host's \(no Node has spec\.podCIDRs\); set provider\.networks\.hostPodCIDRs and remotePodCIDRs/ }]);
  t.match(checkAddresses(nets(known('10.244.0.0/16')), nets(unknown), policy({ unknownCIDRs: 'refuse' })), [{ level: 'refuse', message: /the remote's .*unknownCIDRs: refuse/ }]);
  t.same(checkAddresses(nets(unknown), nets(unknown), policy({ blankPodIPs: true })), []);
});

void t.test('a configured list wins and is named as configured', async (t) => {
  const host = nets(configured(['10.0.0.0/8'], 'networks.hostPodCIDRs'));
  t.match(checkAddresses(host, nets(known('10.88.0.0/16')), policy()), [{ level: 'refuse', message: /overlaps the host pod CIDR 10\.0\.0\.0\/8 \(configured \(networks\.hostPodCIDRs\)\)/ }]);
});

void t.test('host endpoint addresses inside the remote\'s own pod or Service CIDRs are never copied; a remap goes first', async (t) => {
  const remote = remoteOwnCidrs(nets(known('10.88.0.0/16'), known('10.0.0.0/24')));
  t.equal(copiedHostAddress('10.89.0.5', remote), '10.89.0.5', 'outside both: copied');
  t.equal(copiedHostAddress('10.88.1.2', remote), undefined, 'a remote pod address: left out');
  t.equal(copiedHostAddress('10.0.0.10', remote), undefined, 'a remote ClusterIP: left out');
  const remap = { toHost: (ip: string) => ip, toRemote: (ip: string) => (ip.startsWith('10.88.') ? ip.replace('10.88.', '172.30.') : undefined) };
  t.equal(copiedHostAddress('10.88.1.2', remote, remap), '172.30.1.2', 'remapped out of the remote ranges: copied');
  t.equal(copiedHostAddress('10.89.0.5', remote, remap), undefined, 'the hook cannot translate it: left out, never passed through');
  t.same(remoteOwnCidrs(nets(unknown, unknown)), [], 'unknown remote ranges check nothing');
});
