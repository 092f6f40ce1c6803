import type { CoreV1Api, V1PodList } from '@kubernetes/client-node';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { call, type Caller, ignoreNotFound, orUndefined } from './call.js';
import { KubeApiError } from './errors.js';
import type { Pod, PodStatus } from './model.js';
import type { DeletePodOptions, ListPodsOptions, PodApi, PodList } from './podApi.js';
import { operation } from './operation.js';
import { plainAnswer, unreadAnswer } from './plainAnswers.js';
import { forEachPage, type PageQuery } from './pagedList.js';
import { statusPatchBody } from './statusPatch.js';
import { definedOnly } from '../../lib/defaults.js';

/**
 * A patch whose `metadata.uid` differs from the stored pod's is refused by the API server as 422
 * Invalid whose Status names the field in `details.causes` (apimachinery's ValidateObjectMetaUpdate:
 * FieldValueInvalid on `metadata.uid`, "field is immutable"): another pod holds the name now. That is the
 * 'conflict' of the PodApi contract (as for a failed delete precondition), not a bad request.
 */
async function uidMismatchIsConflict(pending: Promise<Pod>): Promise<Pod> {
  try {
    return await pending;
  } catch (error) {
    if (error instanceof KubeApiError && error.kind === 'invalid-input' && error.causeFields?.includes('metadata.uid') === true) {
      throw new KubeApiError({ kind: 'conflict', status: 409, message: `another pod holds the name now (${error.message})` }, 'uid precondition', error);
    }
    throw error;
  }
}

/** The queue key of a pod's status writes: every write carries the whole of Tether's part, so the newest alone matters. Keyed by UID: a namesake pod's writes never drop ours. */
const statusKey = (uid: string): string => `status pod ${uid}`;

/** {@link PodApi} over client-node's CoreV1Api. */
export class PodApiClient implements PodApi {
  constructor(
    private readonly core: CoreV1Api,
    private readonly limiter: Caller,
  ) {}

  getPod(namespace: string, name: string): Promise<Pod | undefined> {
    return orUndefined(
      call(this.limiter, 'other', operation('get', `pod ${namespace}/${name}`), (o) => this.core.readNamespacedPod({ name, namespace }, o)),
    );
  }

  patchPodStatus(namespace: string, name: string, uid: string, status: PodStatus): Promise<Pod> {
    // The body is {metadata: {uid}, status}: no resourceVersion, labels or annotations. The uid, as
    // in the kubelet's patch, makes the API server refuse it for a newer pod of the same name.
    // client-node defaults PATCH to application/json-patch+json; the header must be set per call.
    // Keyed by the pod: a newer status of the same pod drops an older one still queued (statusKey).
    return uidMismatchIsConflict(call(
      this.limiter,
      'status',
      operation('patch', `status of pod ${namespace}/${name} (uid ${uid})`),
      // The stored pod is read as plain JSON: its status and resourceVersion are all callers read (plainAnswers.ts).
      async (o) => {
        const answer = plainAnswer<Pod>(setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch, o));
        await this.core.patchNamespacedPodStatus({ name, namespace, body: { metadata: { uid }, status: statusPatchBody(status) } }, answer.options);
        return answer.value() ?? {};
      },
      { key: statusKey(uid) },
    ));
  }

  patchPodAnnotations(namespace: string, name: string, uid: string, annotations: Readonly<Record<string, string | null>>): Promise<Pod> {
    return uidMismatchIsConflict(call(this.limiter, 'other', operation('patch', `annotations of pod ${namespace}/${name} (uid ${uid})`), (o) =>
      this.core.patchNamespacedPod(
        { name, namespace, body: { metadata: { uid, annotations } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch, o),
      ),
    ));
  }

  deletePod(namespace: string, name: string, options: DeletePodOptions): Promise<void> {
    const { uid, gracePeriodSeconds } = options;
    return ignoreNotFound(
      call(this.limiter, 'delete', operation('delete', `pod ${namespace}/${name} (uid ${uid})`), (o) =>
        this.core.deleteNamespacedPod({
          name,
          namespace,
          ...definedOnly({ gracePeriodSeconds }),
          body: { preconditions: { uid }, ...definedOnly({ gracePeriodSeconds }) },
        }, unreadAnswer(o)),
      ),
    );
  }

  async listPods(options: ListPodsOptions = {}): Promise<PodList> {
    const items: Pod[] = [];
    let resourceVersion: string | undefined;
    await forEachPage((page) => this.listPage(options, page), (page) => {
      items.push(...page.items);
      resourceVersion ??= page.metadata?.resourceVersion ?? '';
    });
    return { items, resourceVersion: resourceVersion ?? '' };
  }

  private listPage(options: ListPodsOptions, page: PageQuery): Promise<V1PodList> {
    const { namespace, fieldSelector, labelSelector } = options;
    const query = { ...page, ...definedOnly({ fieldSelector, labelSelector }) };
    const where = namespace ?? 'all namespaces';
    return call(this.limiter, 'other', operation('list', `pods in ${where}`), (o) =>
      namespace !== undefined
        ? this.core.listNamespacedPod({ namespace, ...query }, o)
        : this.core.listPodForAllNamespaces(query, o),
      { deadline: 'list' },
    );
  }
}
