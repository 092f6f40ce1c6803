/**
 * `GET /actors/events`: the live tree's changes as Server-Sent Events, so the page never re-polls
 * the whole tree. The registry's change feed (recorded only while a client listens) is taken once
 * per interval: every change within an interval is coalesced into one `changes` event per client,
 * `{"changed":[snapshots],"removed":[paths]}`, restricted to the client's selection (`node`,
 * `path`; the content filters too). An event that would hold more than MAX_ITEMS actors or
 * PAGE_BYTES is sent as `resync` instead (re-read the summary and the lists you show).
 *
 * Backpressure: a client whose socket still holds more than `maxQueuedBytes` unsent is skipped
 * (what it missed is coalesced into a `resync` once it has drained); one still behind after
 * `dropAfterTicks` intervals is disconnected (EventSource reconnects by itself). So a slow or
 * stalled reader costs at most one event beyond the bound, never a growing queue.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ActorRegistry, ActorSnapshot } from '../runtime/actorRegistry.js';
import type { ActorSelection } from './actorQuery.js';
import { matchesPodFilter, subtreeRoot } from './actorQuery.js';
import { matchesFilter } from './actorFilter.js';
import { PAGE_BYTES, parseSelection } from './actorsRoute.js';

export interface ActorEventOptions {
  /** How often changes are taken and sent. Default 250 ms. */
  readonly intervalMs?: number;
  /** Unsent bytes a client may hold before it is skipped. Default 256 KiB. */
  readonly maxQueuedBytes?: number;
  /** Intervals a client may stay over the bound before it is disconnected. Default 40. */
  readonly dropAfterTicks?: number;
}

export const MAX_ITEMS = 200;

interface Client {
  readonly res: ServerResponse;
  readonly root: string | undefined;
  readonly selection: ActorSelection;
  behindTicks: number;
  missed: boolean;
}

export interface ActorEventStats {
  readonly clients: number;
  readonly dropped: number;
  readonly resyncs: number;
  /** The most bytes any client's socket held unsent, measured after each write. */
  readonly maxQueuedBytes: number;
}

export class ActorEventHub {
  private readonly clients = new Set<Client>();
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;
  private counts = { dropped: 0, resyncs: 0, maxQueuedBytes: 0 };
  private readonly intervalMs: number;
  private readonly maxQueuedBytes: number;
  private readonly dropAfterTicks: number;

  constructor(private readonly registry: ActorRegistry, options: ActorEventOptions = {}) {
    this.intervalMs = options.intervalMs ?? 250;
    this.maxQueuedBytes = options.maxQueuedBytes ?? 256 * 1024;
    this.dropAfterTicks = options.dropAfterTicks ?? 40;
  }

  stats(): ActorEventStats {
    return { clients: this.clients.size, ...this.counts };
  }

  serve(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const selection = parseSelection(url.searchParams);
    const root = subtreeRoot(this.registry, selection)?.path;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(`retry: 2000\nevent: hello\ndata: ${JSON.stringify({ root: root ?? null, intervalMs: this.intervalMs })}\n\n`);
    const client: Client = { res, root, selection, behindTicks: 0, missed: false };
    this.clients.add(client);
    if (this.clients.size === 1) this.start();
    const leave = (): void => this.remove(client);
    req.on('close', leave);
    res.on('close', leave);
  }

  /** Ends every stream (the server is stopping). */
  stop(): void {
    for (const client of [...this.clients]) {
      client.res.end();
      this.remove(client);
    }
  }

  private start(): void {
    this.stopListening = this.registry.changes.listen();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  private remove(client: Client): void {
    if (!this.clients.delete(client)) return;
    if (this.clients.size > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.stopListening?.();
    this.stopListening = undefined;
  }

  private tick(): void {
    const { changed, removed } = this.registry.changes.take();
    const snapshots = new Map<string, ActorSnapshot | undefined>();
    const snapshotOf = (path: string): ActorSnapshot | undefined => {
      if (!snapshots.has(path)) snapshots.set(path, this.registry.get(path)?.snapshot());
      return snapshots.get(path);
    };
    for (const client of [...this.clients]) {
      if (client.res.destroyed) {
        this.remove(client);
        continue;
      }
      if (client.res.writableLength > this.maxQueuedBytes) {
        client.missed = true;
        if (++client.behindTicks >= this.dropAfterTicks) {
          this.counts.dropped++;
          client.res.destroy();
          this.remove(client);
        }
        continue;
      }
      client.behindTicks = 0;
      this.send(client, client.missed ? undefined : this.eventFor(client, changed, removed, snapshotOf));
      client.missed = false;
    }
  }

  /** The client's share of the changes as one event's data, or undefined when it must resync. */
  private eventFor(client: Client, changed: readonly string[], removed: readonly string[], snapshotOf: (path: string) => ActorSnapshot | undefined): string | null | undefined {
    const mine = (path: string): boolean => client.root !== undefined && (path === client.root || path.startsWith(`${client.root}/`));
    const gone = removed.filter(mine);
    const items: string[] = [];
    let bytes = 0;
    for (const path of changed) {
      if (!mine(path)) continue;
      const snapshot = snapshotOf(path);
      if (snapshot === undefined) continue;
      const filter = client.selection.filter;
      if (!matchesPodFilter(snapshot, client.selection) || (filter !== undefined && !matchesFilter(snapshot, filter))) continue;
      const json = JSON.stringify(snapshot);
      bytes += json.length;
      if (items.length >= MAX_ITEMS || bytes > PAGE_BYTES) return undefined;
      items.push(json);
    }
    if (items.length === 0 && gone.length === 0) return null;
    return `{"changed":[${items.join(',')}],"removed":${JSON.stringify(gone)}}`;
  }

  /** Writes `data` (undefined: a resync; null: nothing to say). */
  private send(client: Client, data: string | null | undefined): void {
    if (data === null) return;
    if (data === undefined) {
      this.counts.resyncs++;
      client.res.write('event: resync\ndata: {}\n\n');
    } else {
      client.res.write(`event: changes\ndata: ${data}\n\n`);
    }
    this.counts.maxQueuedBytes = Math.max(this.counts.maxQueuedBytes, client.res.writableLength);
  }
}
