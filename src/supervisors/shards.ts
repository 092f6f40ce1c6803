import type { ActorBehavior, ActorRef } from '../runtime/behavior.js';
import type { RestartPolicy } from './restartPolicy.js';
import type { ChildOptions, Supervisor } from './supervisor.js';

/**
 * Spreads many dynamic children (one per pod) over a fixed number of shard supervisors.
 *
 * Why: nact copies an actor's children map for every message that actor handles, so one parent
 * with 10k children pays milliseconds per message. Shards bound every parent's size, and nobody
 * routes through them: callers keep the child's reference and tell it directly.
 */
export class Shards {
  private readonly group: Supervisor;

  constructor(
    parent: Supervisor,
    name: string,
    readonly shardCount: number,
    shardPolicy: RestartPolicy,
  ) {
    if (!Number.isInteger(shardCount) || shardCount < 1) throw new Error(`${parent.path}/${name}: shardCount must be a positive integer, got ${shardCount}`);
    this.group = parent.spawnSupervisor(name, {
      kind: 'shards',
      policy: { ...shardPolicy, childIntensity: undefined, intensity: undefined, restart: 'permanent' },
      onStart: (group) => {
        for (let i = 0; i < shardCount; i++) group.spawnSupervisor(shardName(i), { kind: 'shard', policy: shardPolicy });
      },
    });
  }

  get path(): string {
    return this.group.path;
  }

  /** The shard a key lives in; stable for the life of the process. */
  shardFor(key: string): Supervisor {
    const shard = this.group.child(shardName(fnv1a(key) % this.shardCount));
    if (!shard) throw new Error(`${this.group.path}: shards are not running`);
    return shard as Supervisor;
  }

  spawn<S, M, E>(key: string, behavior: ActorBehavior<S, M, E>, options?: ChildOptions): ActorRef<M> {
    return this.shardFor(key).spawn(key, behavior, options);
  }

  release(key: string): void {
    this.shardFor(key).release(key);
  }

  /** The largest number of children any one shard holds. */
  largestShard(): number {
    let max = 0;
    for (let i = 0; i < this.shardCount; i++) {
      const shard = this.group.child(shardName(i)) as Supervisor | undefined;
      max = Math.max(max, shard?.childCount ?? 0);
    }
    return max;
  }
}

const shardName = (i: number): string => `shard-${String(i).padStart(2, '0')}`;

/** FNV-1a: a cheap, well-spread string hash. */
function fnv1a(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
