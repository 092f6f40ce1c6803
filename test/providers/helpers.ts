/** Shared fixtures for the provider specifications. Not a test file itself. */
import type { Pod } from '../../src/adapters/kubernetes/model.js';

export interface PodFixtureOptions {
  readonly namespace?: string;
  readonly uid?: string;
  readonly containers?: ReadonlyArray<{ name: string; image: string }>;
  readonly initContainers?: ReadonlyArray<{ name: string; image: string }>;
  readonly restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  readonly terminationGracePeriodSeconds?: number;
  readonly deletionGracePeriodSeconds?: number;
}

export function podFixture(name: string, options: PodFixtureOptions = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: options.namespace ?? 'ns',
      uid: options.uid ?? `uid-${name}`,
      ...(options.deletionGracePeriodSeconds === undefined
        ? {}
        : { deletionGracePeriodSeconds: options.deletionGracePeriodSeconds, deletionTimestamp: new Date(0) }),
    },
    spec: {
      nodeName: 'tether-node',
      containers: (options.containers ?? [{ name: 'main', image: 'nginx:1.27' }]).map((c) => ({ ...c })),
      ...(options.initContainers === undefined ? {} : { initContainers: options.initContainers.map((c) => ({ ...c })) }),
      restartPolicy: options.restartPolicy ?? 'Always',
      ...(options.terminationGracePeriodSeconds === undefined
        ? {}
        : { terminationGracePeriodSeconds: options.terminationGracePeriodSeconds }),
    },
  };
}

/** The pod as Tether hands it to deletePod: with a deletion grace period set. */
export function deleting(pod: Pod, graceSeconds: number): Pod {
  return { ...pod, metadata: { ...pod.metadata, deletionGracePeriodSeconds: graceSeconds, deletionTimestamp: new Date(0) } };
}
