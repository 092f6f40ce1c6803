import type { CoreV1Api, V1PodList } from '@kubernetes/client-node';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { call, type Caller, ignoreNotFound, orUndefined } from './call.js';
import type { Pod, PodStatus } from './model.js';
import type { DeletePodOptions, ListPodsOptions, PodApi, PodList } from './podApi.js';

const PAGE_SIZE = 500;

/** {@link PodApi} over client-node's CoreV1Api. */
export class PodApiClient implements PodApi {
  constructor(
    private readonly core: CoreV1Api,
    private readonly limiter: Caller,
  ) {}

  getPod(namespace: string, name: string): Promise<Pod | undefined> {
    return orUndefined(
      call(this.limiter, 'other', `get pod ${namespace}/${name}`, (o) => this.core.readNamespacedPod({ name, namespace }, o)),
    );
  }

  patchPodStatus(namespace: string, name: string, status: PodStatus): Promise<Pod> {
    // The body is exactly {status}: no metadata, so no resourceVersion, labels or annotations.
    // client-node defaults PATCH to application/json-patch+json; the header must be set per call.
    return call(this.limiter, 'status', `patch status of pod ${namespace}/${name}`, (o) =>
      this.core.patchNamespacedPodStatus(
        { name, namespace, body: { status } },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch, o),
      ),
    );
  }

  patchPodAnnotations(namespace: string, name: string, annotations: Readonly<Record<string, string | null>>): Promise<Pod> {
    return call(this.limiter, 'other', `patch annotations of pod ${namespace}/${name}`, (o) =>
      this.core.patchNamespacedPod(
        { name, namespace, body: { metadata: { annotations } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch, o),
      ),
    );
  }

  deletePod(namespace: string, name: string, options: DeletePodOptions): Promise<void> {
    const { uid, gracePeriodSeconds } = options;
    return ignoreNotFound(
      call(this.limiter, 'delete', `delete pod ${namespace}/${name} (uid ${uid})`, (o) =>
        this.core.deleteNamespacedPod({
          name,
          namespace,
          ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}),
          body: { preconditions: { uid }, ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}) },
        }, o),
      ),
    );
  }

  async listPods(options: ListPodsOptions = {}): Promise<PodList> {
    const items: Pod[] = [];
    let resourceVersion: string | undefined;
    let cont: string | undefined;
    do {
      const page = await this.listPage(options, cont);
      items.push(...page.items);
      resourceVersion ??= page.metadata?.resourceVersion ?? '';
      cont = page.metadata?._continue || undefined;
    } while (cont !== undefined);
    return { items, resourceVersion: resourceVersion ?? '' };
  }

  private listPage(options: ListPodsOptions, cont: string | undefined): Promise<V1PodList> {
    const { namespace, fieldSelector, labelSelector } = options;
    const query = {
      limit: PAGE_SIZE,
      ...(cont !== undefined ? { _continue: cont } : {}),
      ...(fieldSelector !== undefined ? { fieldSelector } : {}),
      ...(labelSelector !== undefined ? { labelSelector } : {}),
    };
    const where = namespace ?? 'all namespaces';
    return call(this.limiter, 'other', `list pods in ${where}`, (o) =>
      namespace !== undefined
        ? this.core.listNamespacedPod({ namespace, ...query }, o)
        : this.core.listPodForAllNamespaces(query, o),
      { deadline: 'list' },
    );
  }
}
