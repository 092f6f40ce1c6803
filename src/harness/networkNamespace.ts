/**
 * A network namespace joined to the host by a veth pair, so a process (a Tether node, say) can run
 * with a non-loopback address of its own and be partitioned from the API server by taking the link
 * down. Each namespace gets a /30 from 10.213.0.0/16: host side .1, namespace side .2. The namespace
 * has no default route: it can reach the host-side address and nothing else. Needs root.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { promisify } from 'node:util';
import { registerExitCleanup } from './exitCleanup.js';

const run = promisify(execFile);

export type NetworkNamespaceSupport = { available: true } | { available: false; reason: string };

export interface NetworkNamespace {
  name: string;
  /** The host end's address: what processes inside the namespace dial to reach host services. */
  hostAddress: string;
  /** The namespace end's address: the namespace's own non-loopback address. */
  namespaceAddress: string;
  hostInterface: string;
  /** The command line that runs `command args` inside the namespace. */
  wrap(command: string, args: readonly string[]): { command: string; args: string[] };
  /** Cuts the link (both directions), e.g. to partition a node from its API server. */
  linkDown(): Promise<void>;
  linkUp(): Promise<void>;
  /** Deletes the namespace and the veth pair. Idempotent. */
  remove(): Promise<void>;
}

const ADDRESS_POOL = { first: [10, 213, 0, 0] as const, blocks: 16_384 };

let support: Promise<NetworkNamespaceSupport> | undefined;

/** Whether namespaces can be made here; probes once with a real `ip netns add`. */
export function networkNamespaceSupport(): Promise<NetworkNamespaceSupport> {
  support ??= probeSupport();
  return support;
}

async function probeSupport(): Promise<NetworkNamespaceSupport> {
  if (process.platform !== 'linux') return { available: false, reason: `network namespaces need Linux (this is ${process.platform})` };
  if (process.getuid?.() !== 0) return { available: false, reason: 'network namespaces need root (ip netns add fails otherwise)' };
  const probe = `tether-probe-${randomBytes(3).toString('hex')}`;
  try {
    await run('ip', ['netns', 'add', probe]);
    await run('ip', ['netns', 'del', probe]);
    return { available: true };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { available: false, reason: `'ip netns add' failed here (no iproute2, or no CAP_SYS_ADMIN in this container): ${detail}` };
  }
}

export async function createNetworkNamespace(label = 'ns'): Promise<NetworkNamespace> {
  const supported = await networkNamespaceSupport();
  if (!supported.available) throw new Error(`network namespaces are unavailable: ${supported.reason}`);
  const id = randomBytes(3).toString('hex');
  const name = `tether-${label.replace(/[^a-z0-9-]/gi, '').slice(0, 20)}-${id}`;
  const hostInterface = `th${id}h`;
  const peerInterface = `th${id}n`;
  const { hostAddress, namespaceAddress } = await pickAddresses();

  const unregister = registerExitCleanup(() => {
    try {
      execFileSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
    } finally {
      execFileSync('ip', ['link', 'del', hostInterface], { stdio: 'ignore' });
    }
  });
  const ip = async (...args: string[]): Promise<void> => {
    await run('ip', args);
  };
  const inside = (...args: string[]): Promise<void> => ip('netns', 'exec', name, 'ip', ...args);
  let removed = false;
  const remove = async (): Promise<void> => {
    if (removed) return;
    removed = true;
    unregister();
    await ip('netns', 'del', name).catch(() => undefined);
    await ip('link', 'del', hostInterface).catch(() => undefined); // gone with the namespace, normally
  };

  try {
    await ip('netns', 'add', name);
    await ip('link', 'add', hostInterface, 'type', 'veth', 'peer', 'name', peerInterface);
    await ip('link', 'set', peerInterface, 'netns', name);
    await ip('addr', 'add', `${hostAddress}/30`, 'dev', hostInterface);
    await ip('link', 'set', hostInterface, 'up');
    await inside('addr', 'add', `${namespaceAddress}/30`, 'dev', peerInterface);
    await inside('link', 'set', peerInterface, 'up');
    await inside('link', 'set', 'lo', 'up');
  } catch (error) {
    await remove();
    throw error;
  }

  return {
    name, hostAddress, namespaceAddress, hostInterface,
    wrap: (command, args) => ({ command: 'ip', args: ['netns', 'exec', name, command, ...args] }),
    linkDown: () => ip('link', 'set', hostInterface, 'down'),
    linkUp: () => ip('link', 'set', hostInterface, 'up'),
    remove,
  };
}

/** The /30 block `index` of the pool: host side .1, namespace side .2. */
export function blockAddresses(index: number): { hostAddress: string; namespaceAddress: string; network: string } {
  if (!Number.isInteger(index) || index < 0 || index >= ADDRESS_POOL.blocks) throw new RangeError(`no /30 block ${index} in the pool`);
  const [a, b] = ADDRESS_POOL.first;
  const offset = index * 4;
  const octets = (n: number): string => `${a}.${b}.${offset >> 8}.${(offset & 255) + n}`;
  return { network: octets(0), hostAddress: octets(1), namespaceAddress: octets(2) };
}

/** A random free block: random so concurrent test processes rarely collide; checked against live addresses. */
async function pickAddresses(): Promise<{ hostAddress: string; namespaceAddress: string }> {
  const { stdout } = await run('ip', ['-4', '-o', 'addr', 'show']);
  for (let attempt = 0; attempt < 50; attempt++) {
    const block = blockAddresses(randomInt(ADDRESS_POOL.blocks));
    const prefix = block.network.split('.').slice(0, 3).join('.');
    const taken = [0, 1, 2, 3].some((n) => stdout.includes(` ${prefix}.${Number(block.network.split('.')[3]) + n}/`));
    if (!taken) return block;
  }
  throw new Error('no free /30 block in 10.213.0.0/16');
}
