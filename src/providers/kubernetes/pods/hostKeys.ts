/**
 * A remote pod update as a patch of the keys that come from the host, keeping every other key
 * (what Calico, Multus, Istio or a remote webhook set). Pure.
 *
 * Tether records on the remote pod which label and annotation keys it wrote (`tether.dev/host-keys`,
 * a JSON `{"labels":[…],"annotations":[…]}`, set at create and at every update). An update sets
 * the keys the host wants now and removes (`null`) only keys that record names and the host no
 * longer wants: a key Tether never wrote is never removed. A pod created before the record
 * existed has none: nothing is removed from it, and the first update writes the record.
 * Container images and activeDeadlineSeconds go in the same strategic merge patch (containers
 * merge by name), with the uid and resourceVersion Tether read as preconditions.
 */
import type { Pod } from '../../../adapters/kubernetes/model.js';
import { markPrefix } from '../marks.js';
import { definedOnly } from '../../../lib/defaults.js';

export const hostKeysAnnotation = `${markPrefix}host-keys`;

interface HostKeys {
  readonly labels: readonly string[];
  readonly annotations: readonly string[];
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

/** The keys Tether recorded writing on a remote pod; undefined when there is no valid record. */
export function recordedHostKeys(pod: Pod): HostKeys | undefined {
  const raw = pod.metadata?.annotations?.[hostKeysAnnotation];
  if (raw === undefined) return undefined;
  try {
    const parsed = JSON.parse(raw) as { labels?: unknown; annotations?: unknown };
    return isStrings(parsed.labels) && isStrings(parsed.annotations) ? { labels: parsed.labels, annotations: parsed.annotations } : undefined;
  } catch {
    return undefined;
  }
}

/** The record of what `pod` (as Tether builds it) sets, as the annotation's value. */
function recordOf(labels: Readonly<Record<string, string>>, annotations: Readonly<Record<string, string>>): string {
  return JSON.stringify({ labels: Object.keys(labels).sort(), annotations: Object.keys(annotations).filter((k) => k !== hostKeysAnnotation).sort() });
}

/** The remote pod to create, carrying the record of the keys Tether sets. */
export function withHostKeys(pod: Pod): Pod {
  const labels = pod.metadata?.labels ?? {};
  const annotations = pod.metadata?.annotations ?? {};
  return { ...pod, metadata: { ...pod.metadata, annotations: { ...annotations, [hostKeysAnnotation]: recordOf(labels, annotations) } } };
}

/** `wanted`, plus `null` for each key Tether wrote before and the host no longer wants. */
function mapPatch(wanted: Readonly<Record<string, string>>, written: readonly string[]): Record<string, string | null> {
  const patch: Record<string, string | null> = { ...wanted };
  for (const key of written) if (!(key in wanted)) patch[key] = null;
  return patch;
}

/** The body of a strategic merge patch of a remote pod (a `null` removes its key). */
export interface PodPatch {
  readonly metadata: {
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly labels: Readonly<Record<string, string | null>>;
    readonly annotations: Readonly<Record<string, string | null>>;
  };
  readonly spec: {
    readonly containers: readonly { readonly name: string; readonly image: string }[];
    readonly initContainers?: readonly { readonly name: string; readonly image: string }[];
    readonly activeDeadlineSeconds?: number;
  };
}

/** The strategic merge patch that brings `current` (the remote pod as read) to what the host wants (`desired`). */
export function hostKeysPatch(current: Pod, desired: Pod): PodPatch {
  const written = recordedHostKeys(current) ?? { labels: [], annotations: [] };
  const labels = desired.metadata?.labels ?? {};
  const annotations = { ...desired.metadata?.annotations };
  delete annotations[hostKeysAnnotation];
  const images = (list: readonly { name: string; image?: string }[] | undefined, have: readonly { name: string }[] | undefined): { name: string; image: string }[] =>
    (list ?? []).flatMap((c) => (c.image !== undefined && have?.some((h) => h.name === c.name) ? [{ name: c.name, image: c.image }] : []));
  const initContainers = images(desired.spec?.initContainers, current.spec?.initContainers);
  return {
    metadata: {
      ...definedOnly({ uid: current.metadata?.uid, resourceVersion: current.metadata?.resourceVersion }),
      labels: mapPatch(labels, written.labels),
      annotations: { ...mapPatch(annotations, written.annotations), [hostKeysAnnotation]: recordOf(labels, annotations) },
    },
    spec: {
      containers: images(desired.spec?.containers, current.spec?.containers),
      ...definedOnly({ initContainers: initContainers.length > 0 ? initContainers : undefined, activeDeadlineSeconds: desired.spec?.activeDeadlineSeconds }),
    },
  };
}
