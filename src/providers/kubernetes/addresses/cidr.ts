/**
 * CIDRs and addresses, parsed and compared. Pure.
 *
 * The bit arithmetic is the `ip-address` package's (MIT, the parser `socks` and so
 * `@kubernetes/client-node` already ship): IPv4 and IPv6, network containment (`isInSubnet`), the
 * network address of a prefix. What is ours: the text Kubernetes uses (`10.244.0.0/16`,
 * `fd00::/64`; a bare address is a /32 or /128), strictness (a leading zero or an out-of-range
 * prefix is an error, not a guess) and the overlap rule: two prefixes overlap exactly when one
 * holds the other's network, since prefixes nest or are disjoint.
 */
import { Address4, Address6 } from 'ip-address';

export type IpFamily = 'IPv4' | 'IPv6';

/** A parsed prefix: its canonical text (network address / length), its family, and the library's value. */
export interface Cidr {
  readonly text: string;
  readonly family: IpFamily;
  readonly address: Address4 | Address6;
}

export type CidrParse = { readonly ok: true; readonly cidr: Cidr } | { readonly ok: false; readonly error: string };

/** `10.244.0.0/16`, `fd00:10::/64`, or a bare address; the network address need not be canonical (`10.244.1.5/16` is `10.244.0.0/16`). */
export function parseCidr(text: string): CidrParse {
  const trimmed = text.trim();
  const [base = '', prefix, ...rest] = trimmed.split('/');
  if (rest.length > 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) return { ok: false, error: `${JSON.stringify(text)} is not a CIDR (address/prefix length)` };
  const family: IpFamily | undefined = Address4.isValid(base) && /^(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,2})){3}$/.test(base) ? 'IPv4' : base.includes(':') && Address6.isValid(base) ? 'IPv6' : undefined;
  if (family === undefined) return { ok: false, error: `${JSON.stringify(text)} is not a CIDR: ${JSON.stringify(base)} is not an IPv4 or IPv6 address` };
  const max = family === 'IPv4' ? 32 : 128;
  const length = prefix === undefined ? max : Number(prefix);
  if (length > max) return { ok: false, error: `${JSON.stringify(text)} is not a CIDR: an ${family} prefix length is at most ${max}` };
  const address = family === 'IPv4' ? new Address4(`${base}/${length}`) : new Address6(`${base}/${length}`);
  const network = address.startAddress().correctForm();
  return { ok: true, cidr: { text: `${network}/${length}`, family, address } };
}

/** The CIDRs of a list, or the first problem. */
export function parseCidrs(texts: readonly string[]): { readonly ok: true; readonly cidrs: Cidr[] } | { readonly ok: false; readonly error: string } {
  const cidrs: Cidr[] = [];
  for (const text of texts) {
    const parsed = parseCidr(text);
    if (!parsed.ok) return parsed;
    if (!cidrs.some((c) => c.text === parsed.cidr.text)) cidrs.push(parsed.cidr);
  }
  return { ok: true, cidrs };
}

/** Whether the two prefixes share an address (never across families). */
export function overlaps(a: Cidr, b: Cidr): boolean {
  if (a.family !== b.family) return false;
  return a.family === 'IPv4'
    ? (a.address as Address4).isInSubnet(b.address as Address4) || (b.address as Address4).isInSubnet(a.address as Address4)
    : (a.address as Address6).isInSubnet(b.address as Address6) || (b.address as Address6).isInSubnet(a.address as Address6);
}

/** The first prefix of `cidrs` that holds `ip` (an address, as an EndpointSlice lists it), if any; not an address: undefined. */
export function cidrHolding(cidrs: readonly Cidr[], ip: string): Cidr | undefined {
  const parsed = ip.includes('/') ? undefined : parseCidr(ip);
  return parsed?.ok ? cidrs.find((c) => overlaps(c, parsed.cidr)) : undefined;
}

/** The first pair (a from `left`, b from `right`) that overlaps, if any. */
export function firstOverlap(left: readonly Cidr[], right: readonly Cidr[]): readonly [Cidr, Cidr] | undefined {
  for (const a of left) {
    const b = right.find((r) => overlaps(a, r));
    if (b) return [a, b];
  }
  return undefined;
}
