/**
 * CIDR parsing and comparison (addresses/cidr.ts), as properties against a plain model of IPv4
 * (32-bit integers and masks) and IPv6 (128-bit bigints): a prefix's canonical text is its
 * network, parsing is idempotent, overlap is "one holds the other's network", and no input makes
 * the parser throw.
 */
import t from 'tap';
import fc from 'fast-check';
import { cidrHolding, firstOverlap, overlaps, parseCidr, parseCidrs, type Cidr } from '../../../../src/providers/kubernetes/addresses/cidr.js';

const v4 = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const mask4 = (len: number): number => (len === 0 ? 0 : (0xffffffff << (32 - len)) >>> 0);
const network4 = (n: number, len: number): number => (n & mask4(len)) >>> 0;
const v6 = (n: bigint): string => Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
const ALL6 = (1n << 128n) - 1n;
const mask6 = (len: number): bigint => (len === 0 ? 0n : (ALL6 << BigInt(128 - len)) & ALL6);

const addr4 = fc.integer({ min: 0, max: 0xffffffff });
const len4 = fc.integer({ min: 0, max: 32 });
const addr6 = fc.bigInt({ min: 0n, max: ALL6 });
const len6 = fc.integer({ min: 0, max: 128 });

const must = (text: string): Cidr => {
  const parsed = parseCidr(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.cidr;
};

void t.test('an IPv4 prefix parses to its network address, and its text parses to itself', async (t) => {
  fc.assert(fc.property(addr4, len4, (n, len) => {
    const cidr = must(`${v4(n)}/${len}`);
    return cidr.family === 'IPv4' && cidr.text === `${v4(network4(n, len))}/${len}` && must(cidr.text).text === cidr.text;
  }));
  t.equal(must('10.244.1.5/16').text, '10.244.0.0/16');
  t.equal(must('10.0.0.7').text, '10.0.0.7/32', 'a bare address is a /32');
});

void t.test('IPv4 overlap is symmetric and is exactly "one holds the other\'s network" in the integer model', async (t) => {
  fc.assert(fc.property(addr4, len4, addr4, len4, (a, la, b, lb) => {
    const short = Math.min(la, lb);
    const model = network4(a, short) === network4(b, short);
    const x = must(`${v4(a)}/${la}`);
    const y = must(`${v4(b)}/${lb}`);
    return overlaps(x, y) === model && overlaps(y, x) === model;
  }));
  t.ok(overlaps(must('10.244.0.0/16'), must('10.244.3.0/24')));
  t.notOk(overlaps(must('10.244.0.0/16'), must('10.245.0.0/16')));
});

void t.test('an address is held by a prefix exactly when its top bits are the network\'s', async (t) => {
  fc.assert(fc.property(addr4, len4, addr4, (net, len, ip) => {
    const cidr = must(`${v4(net)}/${len}`);
    return (cidrHolding([cidr], v4(ip)) !== undefined) === (network4(ip, len) === network4(net, len));
  }));
  t.equal(cidrHolding([must('10.0.0.0/24')], '10.0.0.0/24'), undefined, 'a prefix is not an address');
  t.equal(cidrHolding([must('10.0.0.0/24')], 'db.example'), undefined, 'a name is not an address');
});

void t.test('IPv6 prefixes: canonical network, overlap by the bigint model, never across families', async (t) => {
  fc.assert(fc.property(addr6, len6, addr6, len6, (a, la, b, lb) => {
    const x = must(`${v6(a)}/${la}`);
    const y = must(`${v6(b)}/${lb}`);
    const short = Math.min(la, lb);
    const model = (a & mask6(short)) === (b & mask6(short));
    return x.family === 'IPv6' && must(x.text).text === x.text && overlaps(x, y) === model;
  }), { numRuns: 300 });
  t.equal(must('fd00:10::1/64').text, 'fd00:10::/64');
  t.notOk(overlaps(must('::/0'), must('0.0.0.0/0')), 'IPv4 and IPv6 never overlap');
});

void t.test('the parser answers every string (never throws), and refuses what is not a CIDR with its words', async (t) => {
  fc.assert(fc.property(fc.string(), (text) => {
    const parsed = parseCidr(text);
    return parsed.ok ? must(parsed.cidr.text).text === parsed.cidr.text : parsed.error.includes('not a CIDR');
  }));
  fc.assert(fc.property(fc.constantFrom('10.0.0.0', 'fd00::'), fc.integer({ min: 129, max: 999 }), (base, len) => !parseCidr(`${base}/${len}`).ok));
  for (const bad of ['10.0.0.0/33', '10.0.0/8', '010.0.0.0/8', '10.0.0.0/8/8', '10.0.0.0/x', '', 'fd00::/129', '10.0.0.0/-1']) {
    t.notOk(parseCidr(bad).ok, bad);
  }
});

void t.test('lists: duplicates (by network) collapse, the first bad entry is the error, the first overlapping pair is named', async (t) => {
  const parsed = parseCidrs(['10.244.0.0/16', '10.244.9.9/16', 'fd00::/64']);
  t.same(parsed.ok ? parsed.cidrs.map((c) => c.text) : parsed.error, ['10.244.0.0/16', 'fd00::/64']);
  t.match(parseCidrs(['10.0.0.0/8', 'nope']), { ok: false, error: /"nope" is not a CIDR/ });
  const pair = firstOverlap([must('10.1.0.0/16'), must('10.244.0.0/16')], [must('10.96.0.0/12'), must('10.244.3.0/24')]);
  t.same(pair?.map((c) => c.text), ['10.244.0.0/16', '10.244.3.0/24']);
});
