/**
 * What Service reflection should do in one namespace, decided from caches alone. Pure.
 *
 * `desiredObjects` is the level: the remote copies of the host Services of a namespace with
 * offloaded pods (none for a namespace without), and of the EndpointSlices of those Services.
 * `planReflection` compares it with this virtual node's remote copies and returns the steps:
 * writes for what is missing or differs (Services first, so a slice never names a Service that
 * does not exist yet), then deletions of what is no longer wanted (slices first). A write is
 * skipped when its digest is the one last written (the remote watch has not caught up yet) or
 * the one last refused because the name is taken.
 */
import type { EndpointSlice, Service } from '../../../adapters/kubernetes/model.js';
import { withContentMark } from '../contentMark.js';
import type { HostAddressFilter, OffloadedPodLookup } from './endpointTranslation.js';
import { endpointSliceDigest, remoteEndpointSlice, serviceNameOf } from './reflectedEndpointSlice.js';
import { isReflectedService, remoteService, serviceDigest, type ReflectionMarks } from './reflectedService.js';

export type ReflectedKind = 'Service' | 'EndpointSlice';

export const REFLECTED_KINDS: readonly ReflectedKind[] = ['Service', 'EndpointSlice'];

/** The kind's resource (in log lines) and its word (in Events). */
export const kindPlural = (kind: ReflectedKind): string => (kind === 'Service' ? 'services' : 'endpointslices');
export const kindWord = (kind: ReflectedKind): string => (kind === 'Service' ? 'service' : 'endpointslice');

export type DesiredObject =
  | { readonly kind: 'Service'; readonly name: string; readonly object: Service; readonly digest: string }
  | { readonly kind: 'EndpointSlice'; readonly name: string; readonly object: EndpointSlice; readonly digest: string };

export type ReflectionStep =
  | { readonly type: 'write'; readonly desired: DesiredObject }
  | { readonly type: 'delete'; readonly kind: ReflectedKind; readonly name: string };

export interface DesiredInput {
  readonly services: readonly Service[];
  readonly slices: readonly EndpointSlice[];
  readonly kinds: ReadonlySet<ReflectedKind>;
  readonly remoteNamespace: string;
  readonly marks: ReflectionMarks;
  readonly lookup: OffloadedPodLookup;
  /** Which host addresses (not offloaded pods') a remote slice may carry (default: all). */
  readonly hostAddress?: HostAddressFilter;
}

export function objectKey(kind: ReflectedKind, name: string): string {
  return `${kind}/${name}`;
}

export function desiredObjects(input: DesiredInput): DesiredObject[] {
  if (!input.kinds.has('Service')) return [];
  const services = input.services.filter(isReflectedService);
  const out: DesiredObject[] = services.map((s) => {
    const object = withContentMark(remoteService(s, input.remoteNamespace, input.marks), serviceDigest);
    return { kind: 'Service', name: object.metadata?.name ?? '', object, digest: serviceDigest(object) };
  });
  if (!input.kinds.has('EndpointSlice')) return out;
  const names = new Set(services.map((s) => s.metadata?.name ?? ''));
  for (const slice of input.slices) {
    const service = serviceNameOf(slice);
    if (service === undefined || !names.has(service)) continue;
    const object = withContentMark(remoteEndpointSlice(slice, input.remoteNamespace, input.marks, input.lookup, input.hostAddress), endpointSliceDigest);
    out.push({ kind: 'EndpointSlice', name: object.metadata?.name ?? '', object, digest: endpointSliceDigest(object) });
  }
  return out;
}

export interface PlanInput {
  readonly desired: readonly DesiredObject[];
  /** This node's remote copies in the namespace: object key → digest. */
  readonly existing: ReadonlyMap<string, string>;
  /** Digest last written per object key (not yet seen back, or seen back unchanged). */
  readonly written: ReadonlyMap<string, string>;
  /** Digest last refused per object key because a foreign object holds the name. */
  readonly refused: ReadonlyMap<string, string>;
}

export function planReflection(input: PlanInput): ReflectionStep[] {
  const wanted = new Set(input.desired.map((d) => objectKey(d.kind, d.name)));
  const writes = input.desired.filter((d) => {
    const key = objectKey(d.kind, d.name);
    return input.existing.get(key) !== d.digest && input.written.get(key) !== d.digest && input.refused.get(key) !== d.digest;
  });
  const byKind = (kind: ReflectedKind) => (d: DesiredObject): boolean => d.kind === kind;
  const deletions = (kind: ReflectedKind): ReflectionStep[] =>
    [...input.existing.keys()]
      .filter((key) => key.startsWith(`${kind}/`) && !wanted.has(key))
      .map((key) => ({ type: 'delete', kind, name: key.slice(kind.length + 1) }));
  return [
    ...writes.filter(byKind('Service')).map((desired): ReflectionStep => ({ type: 'write', desired })),
    ...writes.filter(byKind('EndpointSlice')).map((desired): ReflectionStep => ({ type: 'write', desired })),
    ...deletions('EndpointSlice'),
    ...deletions('Service'),
  ];
}
