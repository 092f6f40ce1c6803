/**
 * Hands out IPv4 addresses from a CIDR, as a host-local IPAM plugin would: round robin from the
 * last allocation (a released address is not reused at once), skipping the network address, the
 * gateway (.1 of the range) and the broadcast address.
 */
import { invalidInput, transient } from '../errors.js';

function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
}

export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

export class IpAllocator {
  private readonly first: number;
  private readonly last: number;
  private readonly used = new Set<number>();
  private cursor: number;

  /** Throws invalidInput for anything but an IPv4 CIDR with a prefix of /8 to /30. */
  constructor(readonly cidr: string) {
    const [address, prefixText] = cidr.split('/');
    const base = address === undefined ? undefined : parseIPv4(address);
    const prefix = Number(prefixText);
    if (base === undefined || !Number.isInteger(prefix) || prefix < 8 || prefix > 30) {
      throw invalidInput(`invalid pod CIDR ${JSON.stringify(cidr)}: want an IPv4 CIDR from /8 to /30`);
    }
    const size = 2 ** (32 - prefix);
    const network = base - (base % size);
    this.first = network + 2;
    this.last = network + size - 2;
    this.cursor = this.first;
  }

  /** How many addresses can be in use at once. */
  get size(): number {
    return this.last - this.first + 1;
  }

  get inUse(): number {
    return this.used.size;
  }

  /** A free address, marked used. Not idempotent. Throws transient when the range is exhausted. */
  allocate(): string {
    if (this.used.size >= this.size) throw transient(`pod CIDR ${this.cidr} is exhausted`);
    while (this.used.has(this.cursor)) this.advance();
    const ip = this.cursor;
    this.used.add(ip);
    this.advance();
    return formatIPv4(ip);
  }

  /** Returns an address to the pool. Idempotent; unknown addresses are ignored. */
  release(ip: string): void {
    const value = parseIPv4(ip);
    if (value !== undefined) this.used.delete(value);
  }

  private advance(): void {
    this.cursor = this.cursor >= this.last ? this.first : this.cursor + 1;
  }
}
