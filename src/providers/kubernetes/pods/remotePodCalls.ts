/**
 * The remote API calls behind the provider's pod methods: create (namespace, referenced
 * ConfigMaps and Secrets, then the translated pod; AlreadyExists adopted only for the same host
 * uid), update (a patch of the keys the host sets, hostKeys.ts), delete (only a pod that is Tether's, with a uid
 * precondition) and one read. Every rejection is a classified provider error (remoteErrors.ts).
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { operation } from '../../../adapters/kubernetes/operation.js';
import { isKind } from '../../../lib/errorKind.js';
import { formatPath } from '../../../lib/fieldProblem.js';
import type { Pod } from '../../../adapters/kubernetes/model.js';
import { invalidInput, notFound, transient } from '../../errors.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import type { Reflector } from '../configReflection/configReflector.js';
import { hostUidAnnotation } from '../marks.js';
import type { KubernetesProviderOptions } from '../options.js';
import { asProviderCall, toProviderError } from '../remoteErrors.js';
import { hostKeysPatch, withHostKeys } from './hostKeys.js';
import { ownershipOf, type OwnershipRule } from './ownership.js';
import { DEFAULT_PROJECTED_TOKEN_RULE, namespaceRefusal, policyViolations } from './podPolicy.js';
import { formatViolation } from './podSecurityChecks.js';
import { projectedTokens, remoteEphemeralContainers, toRemotePod, type ProjectedToken, type TranslationContext } from './podTranslation.js';
import { ephemeralContainersPatch, RESIZE_REFUSED, resizePatch, resizeRefusal } from './inPlaceUpdates.js';
import type { RemoteNamespaces } from './remoteNamespaces.js';
import type { RemotePods } from './remotePods.js';
import { definedOnly } from '../../../lib/defaults.js';
import { droppedFields, droppedWords, FIELDS_DROPPED } from './droppedFields.js';
import { notFoundWords, RUNTIME_CLASS_NOT_FOUND, RUNTIME_CLASS_NOT_MAPPED, runtimeClassPlan, unmappedWords, type RuntimeClassPlan } from './runtimeClasses.js';
import { DEFAULT_SCHEDULING_CONSTRAINTS } from './schedulingConstraints.js';
import { hostAccessPlan, type HostAccessPlan } from './hostAccess.js';
import { subjectOfHostPod, type HostTokens } from './hostTokens.js';
import { hostServiceAccountAnnotation } from '../marks.js';

export interface RemotePodCallsDeps {
  readonly o: KubernetesProviderOptions;
  readonly remote: ClusterClient;
  readonly namespaces: RemoteNamespaces;
  readonly reflector: Reflector;
  readonly pods: RemotePods;
  readonly rule: OwnershipRule;
  readonly remoteNamespaceOf: (hostNamespace: string) => string;
  /** The host ServiceAccount tokens, when the node gives pods access to the host API server (hostTokens.ts). */
  readonly hostTokens?: HostTokens;
}

/** Event reasons of the projected ServiceAccount token rule (podTranslation.ts). */
export const PROJECTED_TOKEN_REFUSED = 'ProjectedServiceAccountTokenRefused';
export const PROJECTED_TOKEN_DROPPED = 'ProjectedServiceAccountTokenDropped';

function tokenWords(tokens: readonly ProjectedToken[]): string {
  const fields = tokens.map((t) => formatPath(t.field)).join(', ');
  return `projected ServiceAccount token ${tokens.length === 1 ? 'source' : 'sources'} ${fields}: the host's token never leaves the host, and the remote kubelet would mount a token of the remote cluster's ServiceAccount in its place`;
}

export class RemotePodCalls {
  private readonly o: KubernetesProviderOptions;
  private readonly remote: ClusterClient;
  private readonly namespaces: RemoteNamespaces;
  private readonly reflector: Reflector;
  private readonly pods: RemotePods;
  private readonly rule: OwnershipRule;

  constructor(private readonly deps: RemotePodCallsDeps) {
    this.o = deps.o;
    this.remote = deps.remote;
    this.namespaces = deps.namespaces;
    this.reflector = deps.reflector;
    this.pods = deps.pods;
    this.rule = deps.rule;
  }

  private remoteNamespaceOf(hostNamespace: string): string {
    return this.deps.remoteNamespaceOf(hostNamespace);
  }

  /** `signal`: the attempt was given up (its deadline passed); the pod's POST is then dropped unsent or abandoned. */
  async create(pod: Pod, signal?: AbortSignal): Promise<void> {
    const remoteNamespace = this.remoteNamespaceOf(pod.metadata?.namespace ?? 'default');
    const policy = this.o.podPolicy ?? {};
    const tokens = projectedTokens(pod);
    const refuseTokens = tokens.length > 0 && (policy.projectedServiceAccountTokens ?? DEFAULT_PROJECTED_TOKEN_RULE) === 'refuse';
    const runtimeClass = runtimeClassPlan(pod.spec?.runtimeClassName, this.o.runtimeClassMap);
    const unmapped = runtimeClass.kind === 'unmapped';
    const refusals = [
      namespaceRefusal(remoteNamespace, this.o.namespaceStrategy ?? 'suffix', policy),
      ...policyViolations(pod, policy).map(formatViolation),
      refuseTokens ? `${tokenWords(tokens)}; set podPolicy.projectedServiceAccountTokens: drop on this node to send the pod without them` : undefined,
      runtimeClass.kind === 'unmapped' ? unmappedWords(runtimeClass, this.o.nodeName) : undefined,
    ].filter((r): r is string => r !== undefined);
    if (refusals.length > 0) {
      const level = policy.podSecurityLevel ?? 'baseline';
      throw invalidInput(
        `pod ${pod.metadata?.namespace ?? 'default'}/${pod.metadata?.name ?? ''} refused by the pod policy of node ${this.o.nodeName} (Pod Security level ${level}): ${refusals.join('; ')}`,
        definedOnly({ reason: refuseTokens ? PROJECTED_TOKEN_REFUSED : unmapped ? RUNTIME_CLASS_NOT_MAPPED : undefined }),
      );
    }
    if (runtimeClass.kind === 'remote') await this.requireRuntimeClass(runtimeClass);
    const remoteRuntimeClass = runtimeClass.kind === 'remote' ? runtimeClass.remote : undefined;
    const access = this.deps.hostTokens ? hostAccessPlan(pod, this.o.hostServiceAccountAccess) : undefined;
    const remotePod = withHostKeys(toRemotePod(pod, { ...this.translation(remoteNamespace, access), ...definedOnly({ runtimeClassName: remoteRuntimeClass }) }));
    const name = remotePod.metadata?.name ?? '';
    const what = `remote pod ${remoteNamespace}/${name}`;
    await asProviderCall(`create remote namespace ${remoteNamespace}`, () => this.namespaces.ensure(remoteNamespace, pod.metadata?.namespace ?? 'default'));
    // The token's Secret first, so the remote kubelet finds it when it mounts the pod's volumes.
    const token = access && (await this.deps.hostTokens?.prepare(subjectOfHostPod(pod, access.serviceAccount), remoteNamespace));
    const held = await this.reflector.reflectFor(pod, remoteNamespace, signal).catch((err: unknown) => {
      token?.done();
      throw err;
    });
    let created = false;
    try {
      await this.remote.call('other', operation('create', `${what}`), (core, opts) => core.createNamespacedPod({ namespace: remoteNamespace, body: remotePod }, opts), definedOnly({ signal }));
      created = true;
    } catch (err) {
      if (isKind(err, 'not-found')) this.namespaces.forget(remoteNamespace); // deleted under us; next attempt re-creates it
      if (!isKind(err, 'already-exists')) throw toProviderError(err, `create ${what}`);
      await this.adoptExisting(remoteNamespace, name, remotePod.metadata?.annotations?.[hostUidAnnotation]);
    } finally {
      held.done();
      token?.done();
    }
    if (created) this.reportDropped(pod, access !== undefined);
    if (tokens.length > 0) {
      this.o.onRemoteEvent?.({ namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid }, 'Warning', PROJECTED_TOKEN_DROPPED,
        `${tokenWords(tokens)}; dropped (podPolicy.projectedServiceAccountTokens: drop), so the remote pod runs without them`);
    }
  }

  /** The remote RuntimeClass must exist: a pod is never run under another runtime than it asked for. */
  private async requireRuntimeClass(plan: Extract<RuntimeClassPlan, { kind: 'remote' }>): Promise<void> {
    const what = `remote RuntimeClass ${plan.remote}`;
    try {
      await this.remote.callNode('other', operation('get', what), (node, opts) => node.readRuntimeClass({ name: plan.remote }, opts));
    } catch (err) {
      if (isKind(err, 'not-found')) throw transient(notFoundWords(plan), { reason: RUNTIME_CLASS_NOT_FOUND, cause: err });
      throw toProviderError(err, `read ${what}`);
    }
  }

  /** Once per pod, when its remote pod is created: the fields it set that the remote pod lacks (droppedFields.ts). */
  private reportDropped(pod: Pod, serviceAccountKept: boolean): void {
    const fields = droppedFields(pod.spec, this.o.schedulingConstraints ?? DEFAULT_SCHEDULING_CONSTRAINTS, {
      hostClusterId: this.o.hostClusterId, remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns),
    }, serviceAccountKept);
    if (fields.length === 0) return;
    this.o.onRemoteEvent?.({ namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid }, 'Warning', FIELDS_DROPPED, droppedWords(fields, this.o.nodeName));
  }

  /** AlreadyExists: success if it is this very pod (same host uid), else transient (409 semantics). */
  private async adoptExisting(remoteNamespace: string, name: string, hostUid: string | undefined): Promise<void> {
    const what = `remote pod ${remoteNamespace}/${name}`;
    const existing = await asProviderCall(`read ${what}`, () =>
      this.remote.call('other', operation('get', `${what}`), (core, opts) => core.readNamespacedPod({ name, namespace: remoteNamespace }, opts)),
    );
    const theirs = existing.metadata?.annotations?.[hostUidAnnotation];
    if (theirs !== hostUid) {
      throw transient(`${what} already exists for another pod (host uid ${theirs ?? 'none'}); waiting for it to go`);
    }
  }

  /**
   * Applies what a running pod may change (labels, annotations, container images,
   * activeDeadlineSeconds) as a patch of the keys that come from the host (hostKeys.ts): every
   * other key on the remote pod is kept. Only a pod that is Tether's is patched, at the uid and
   * resourceVersion read (a conflict is retried by the caller with a fresh read).
   */
  async update(pod: Pod): Promise<void> {
    const remoteNamespace = this.remoteNamespaceOf(pod.metadata?.namespace ?? 'default');
    const name = pod.metadata?.name ?? '';
    const what = `remote pod ${remoteNamespace}/${name}`;
    const current = await this.readRemote(remoteNamespace, name);
    if (!current) throw notFound(`${what} does not exist or is not Tether's; not updating it`);
    // Access is fixed at create (the volume is immutable); turned off on the node, its mark goes, and with it the token.
    const hadAccess = current.metadata?.annotations?.[hostServiceAccountAnnotation] !== undefined;
    const access = hadAccess && this.deps.hostTokens ? hostAccessPlan(pod, this.o.hostServiceAccountAccess) : undefined;
    const desired = toRemotePod(pod, this.translation(remoteNamespace, access));
    const body = hostKeysPatch(current, desired);
    await asProviderCall(`update ${what}`, () =>
      this.remote.call('other', operation('patch', `${what}`), (core, opts) =>
        core.patchNamespacedPod({ name, namespace: remoteNamespace, body }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch, opts)),
      ),
    );
    await this.resize(pod, current, desired);
    await this.addEphemeralContainers(pod, current);
  }

  /**
   * Changed container resources go to the remote pod's `resize` subresource; the remote kubelet's
   * answer comes back on the pod's status. A refusal by the remote API server (an invalid or
   * forbidden resize) is the host's answer too: PodResizePending Infeasible and a Warning Event.
   */
  private async resize(pod: Pod, current: Pod, desired: Pod): Promise<void> {
    const remoteNamespace = current.metadata?.namespace ?? '';
    const name = current.metadata?.name ?? '';
    const body = resizePatch(current, desired);
    if (body === undefined) {
      this.pods.setResizeRefusal(remoteNamespace, name, undefined);
      return;
    }
    const what = `resize of remote pod ${remoteNamespace}/${name}`;
    try {
      await this.remote.call('other', operation('patch', what), (core, opts) =>
        core.patchNamespacedPodResize({ name, namespace: remoteNamespace, body }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch, opts)));
      this.pods.setResizeRefusal(remoteNamespace, name, undefined);
    } catch (err) {
      const refused = toProviderError(err, what);
      if (!isKind(err, 'invalid-input') && !isKind(err, 'forbidden')) throw refused;
      const message = refused instanceof Error ? refused.message : String(refused);
      this.pods.setResizeRefusal(remoteNamespace, name, resizeRefusal(message, pod.metadata?.generation, new Date()));
      this.o.onRemoteEvent?.({ namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '', uid: pod.metadata?.uid }, 'Warning', RESIZE_REFUSED, `Pod resize Infeasible: the remote cluster refused the resize: ${message}`);
    }
  }

  /** The host's new ephemeral containers (kubectl debug) go to the remote pod's `ephemeralcontainers` subresource. */
  private async addEphemeralContainers(pod: Pod, current: Pod): Promise<void> {
    const body = ephemeralContainersPatch(current, remoteEphemeralContainers(pod, { nodeName: this.o.nodeName }));
    if (body === undefined) return;
    const remoteNamespace = current.metadata?.namespace ?? '';
    const name = current.metadata?.name ?? '';
    const what = `ephemeral containers of remote pod ${remoteNamespace}/${name}`;
    await asProviderCall(`add ${what}`, () =>
      this.remote.call('other', operation('patch', what), (core, opts) =>
        core.patchNamespacedPodEphemeralcontainers({ name, namespace: remoteNamespace, body }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch, opts))));
  }

  async delete(pod: Pod): Promise<void> {
    const remoteNamespace = this.remoteNamespaceOf(pod.metadata?.namespace ?? 'default');
    const name = pod.metadata?.name ?? '';
    const hostUid = pod.metadata?.annotations?.[hostUidAnnotation] ?? pod.metadata?.uid;
    const what = `remote pod ${remoteNamespace}/${name}`;
    const remote = this.pods.get(remoteNamespace, name) ?? (await this.readRemote(remoteNamespace, name));
    const owner = remote ? ownershipOf(remote, this.rule) : undefined;
    if (!remote || !owner?.owned || (hostUid !== undefined && owner.identity.uid !== hostUid)) {
      throw notFound(`${what} of host pod uid ${hostUid ?? '?'} does not exist`);
    }
    const grace = pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds;
    const uid = remote.metadata?.uid;
    this.pods.markDeleting(remoteNamespace, name, uid);
    try {
      await this.remote.call('delete', operation('delete', `${what}`), (core, opts) =>
        core.deleteNamespacedPod({
          name, namespace: remoteNamespace,
          ...definedOnly({ gracePeriodSeconds: grace }),
          body: definedOnly({ preconditions: uid ? { uid } : undefined, gracePeriodSeconds: grace }),
        }, opts),
      );
    } catch (err) {
      // A failed uid precondition means another pod holds the name now: ours is gone.
      if (isKind(err, 'conflict')) throw notFound(`${what} is gone (another pod holds the name)`, { cause: err });
      throw toProviderError(err, `delete ${what}`);
    }
  }

  /** The remote pod of that name, if it exists and is Tether's (ownership.ts). */
  async readRemote(remoteNamespace: string, name: string): Promise<Pod | undefined> {
    const what = `remote pod ${remoteNamespace}/${name}`;
    try {
      const pod = await this.remote.call('other', operation('get', `${what}`), (core, opts) => core.readNamespacedPod({ name, namespace: remoteNamespace }, opts));
      return ownershipOf(pod, this.rule).owned ? pod : undefined;
    } catch (err) {
      if (isKind(err, 'not-found')) return undefined;
      throw toProviderError(err, `read ${what}`);
    }
  }

  private translation(remoteNamespace: string, hostAccess?: HostAccessPlan): TranslationContext {
    return {
      hostClusterId: this.o.hostClusterId,
      nodeName: this.o.nodeName,
      remoteNamespace,
      namespaceStrategy: this.o.namespaceStrategy ?? 'suffix',
      remoteNamespaceOf: (ns) => this.remoteNamespaceOf(ns),
      ...definedOnly({ offloadingPatch: this.o.offloadingPatch, schedulingConstraints: this.o.schedulingConstraints, hostAccess }),
    };
  }
}
