/**
 * The host ServiceAccount tokens of offloaded pods (hostAccess.ts), kept in their remote Secrets
 * (hostTokenSecret.ts): written before the pod is created (`prepare`), refreshed at 80% of each
 * token's life, deleted once the remote pod is gone.
 *
 * One reconciler (src/lib/reconcile.ts) the node's subtree runs supervised, `host-tokens`, keyed
 * `<remote namespace>/<pod name>`: no timer of its own, the refresh is the reconcile's
 * `requeue-after` (so a restart of the loop, which re-lists every key, loses no refresh). Its
 * level source is every remote pod of this node with access, plus `sweep`, whose reconcile lists
 * this node's token Secrets and enqueues each one's pod, so a Secret whose pod went while no
 * agent ran is found at the next start and resync. Each reconcile reads the Secret: missing, for
 * another incarnation of the host pod, or due → a new TokenRequest on the host, bound to the host
 * pod, and the Secret written (created, or replaced at its uid and resourceVersion); pod gone →
 * the Secret deleted at its uid and resourceVersion. A Secret without every mark is never touched.
 */
import type { V1SecretList } from '@kubernetes/client-node';
import type { Clock } from '../../../lib/clock.js';
import type { KubeLog } from '../../../adapters/kubernetes/log.js';
import type { ClusterClient } from '../../../adapters/kubernetes/clusterClient.js';
import type { Pod, Secret } from '../../../adapters/kubernetes/model.js';
import { operation } from '../../../adapters/kubernetes/operation.js';
import { readRootCa, requestBoundToken } from '../../../adapters/kubernetes/serviceAccountTokens.js';
import { isKind } from '../../../lib/errorKind.js';
import { errorMessage } from '../../../lib/errorMessage.js';
import { definedOnly } from '../../../lib/defaults.js';
import { done, reconcileError, reconcileTrigger, requeueAfter, type ReconcileResult, type Reconciler } from '../../../lib/reconcile.js';
import { transient } from '../../errors.js';
import { hostNameAnnotation, hostServiceAccountAnnotation, hostUidAnnotation } from '../marks.js';
import { toProviderError } from '../remoteErrors.js';
import { DEFAULT_TOKEN_SECONDS, type HostAccessSettings } from './hostAccess.js';
import { hostTokenSecret, hostTokenSecretName, hostTokenSelector, isHostTokenSecret, issuedAtAnnotation, refreshDueAt, tokenRefresh } from './hostTokenSecret.js';
import { hostIdentityOf } from './hostView.js';
import type { OwnershipRule } from './ownership.js';

export interface HostTokensOptions {
  readonly host: ClusterClient;
  readonly remote: ClusterClient;
  readonly rule: OwnershipRule;
  readonly settings: HostAccessSettings;
  /** This node's remote pods, from the informer (pods/remotePods.ts). */
  readonly pods: { get(remoteNamespace: string, name: string): Pod | undefined; list(): Pod[]; hasSynced(): boolean };
  readonly clock: Clock;
  readonly log: KubeLog;
  /** A Secret younger than this is never deleted for want of its pod: the pod may be being created (default 30 s). */
  readonly minAgeMs?: number;
  /** Resync of every key and of the sweep (default 5 min). */
  readonly resyncMs?: number;
}

/** The host pod a token is for. */
export interface TokenSubject {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly serviceAccount: string;
}

const SWEEP_KEY = 'sweep';

const notOwned = (namespace: string, name: string): Error =>
  transient(`remote secret ${namespace}/${name} exists and is not Tether's host token secret; not overwriting it`);

export class HostTokens {
  private readonly trigger = reconcileTrigger();
  private readonly loop: Reconciler;
  /** Pods being created: their Secret exists before the informer shows them. */
  private readonly creating = new Set<string>();

  constructor(private readonly o: HostTokensOptions) {
    this.loop = {
      name: 'host-tokens',
      kind: 'host-tokens',
      settings: { resyncMs: o.resyncMs ?? 5 * 60_000 },
      keys: () => [SWEEP_KEY, ...o.pods.list().filter((p) => p.metadata?.annotations?.[hostServiceAccountAnnotation] !== undefined)
        .map((p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`)],
      connect: this.trigger.connect,
      reconcile: (key) => (key === SWEEP_KEY ? this.sweep() : this.reconcilePod(key)),
    };
  }

  reconciler(): Reconciler {
    return this.loop;
  }

  /**
   * Before the pod is created remotely: its token written into its Secret. Rejects with classified
   * provider errors. `done` ends the hold that keeps the Secret from being deleted for want of its pod.
   */
  async prepare(subject: TokenSubject, remoteNamespace: string): Promise<{ done: () => void }> {
    const key = `${remoteNamespace}/${subject.name}`;
    this.creating.add(key);
    const release = (): void => {
      this.creating.delete(key);
      this.trigger.enqueue(key);
    };
    try {
      const current = await this.readSecret(remoteNamespace, hostTokenSecretName(subject.name));
      // A retried create (or an adopted pod) reuses a token of this very pod that is not yet due.
      const refresh = current && isHostTokenSecret(current, this.o.rule) ? tokenRefresh(current) : undefined;
      if (refresh?.hostUid !== subject.uid || this.o.clock.now() >= refresh.dueAt) await this.write(subject, remoteNamespace, current);
    } catch (err) {
      release();
      throw toProviderError(err, `write the host ServiceAccount token of pod ${subject.namespace}/${subject.name}`);
    }
    return { done: release };
  }

  /** A remote pod of this node went: its Secret goes too. */
  podGone(remoteNamespace: string, name: string): void {
    this.trigger.enqueue(`${remoteNamespace}/${name}`);
  }

  private async sweep(): Promise<ReconcileResult> {
    try {
      const list = await this.o.remote.call<V1SecretList>('other', operation('list', 'host token secrets'), (core, options) =>
        core.listSecretForAllNamespaces({ labelSelector: hostTokenSelector(this.o.rule) }, options));
      for (const secret of list.items) {
        const podName = secret.metadata?.annotations?.[hostNameAnnotation];
        if (podName !== undefined && isHostTokenSecret(secret, this.o.rule)) this.trigger.enqueue(`${secret.metadata?.namespace ?? ''}/${podName}`);
      }
      return done;
    } catch (err) {
      return reconcileError('transient', errorMessage(toProviderError(err, 'list host token secrets')));
    }
  }

  private async reconcilePod(key: string): Promise<ReconcileResult> {
    const slash = key.indexOf('/');
    const remoteNamespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    // Whether the pod is gone is the informer's to say, once it has listed.
    if (!this.o.pods.hasSynced()) return requeueAfter(1_000);
    try {
      const secretName = hostTokenSecretName(name);
      const secret = await this.readSecret(remoteNamespace, secretName);
      if (secret && !isHostTokenSecret(secret, this.o.rule)) {
        this.o.log.warn('a remote secret holding a host token\'s name is not Tether\'s; left alone', { namespace: remoteNamespace, name: secretName });
        return done;
      }
      const subject = this.subjectOf(this.o.pods.get(remoteNamespace, name));
      if (!subject) return secret ? this.deleteUnlessYoung(key, secret) : done;
      const now = this.o.clock.now();
      const refresh = secret && tokenRefresh(secret);
      if (refresh && refresh.hostUid === subject.uid && now < refresh.dueAt) return requeueAfter(refresh.dueAt - now);
      return requeueAfter((await this.write(subject, remoteNamespace, secret)) - this.o.clock.now());
    } catch (err) {
      const failure = toProviderError(err, `keep the host ServiceAccount token of remote pod ${key}`);
      this.o.log.warn('keeping a host ServiceAccount token failed; retried with backoff', { key, error: errorMessage(failure) });
      return reconcileError('transient', errorMessage(failure));
    }
  }

  /** The host pod a remote pod with access stands for; undefined for one without (or none). */
  private subjectOf(remote: Pod | undefined): TokenSubject | undefined {
    const serviceAccount = remote?.metadata?.annotations?.[hostServiceAccountAnnotation];
    const identity = remote && hostIdentityOf(remote);
    if (serviceAccount === undefined || !identity?.uid) return undefined;
    return { namespace: identity.namespace, name: identity.name, uid: identity.uid, serviceAccount };
  }

  private async deleteUnlessYoung(key: string, secret: Secret): Promise<ReconcileResult> {
    const age = this.o.clock.now() - Date.parse(secret.metadata?.annotations?.[issuedAtAnnotation] ?? '');
    const minAge = this.o.minAgeMs ?? 30_000;
    if (this.creating.has(key)) return done; // the create's end enqueues it again
    if (age < minAge) return requeueAfter(minAge - age);
    const namespace = secret.metadata?.namespace ?? '';
    const name = secret.metadata?.name ?? '';
    const preconditions = definedOnly({ uid: secret.metadata?.uid, resourceVersion: secret.metadata?.resourceVersion });
    try {
      await this.o.remote.call('delete', operation('delete', `remote secret ${namespace}/${name}`), (core, options) =>
        core.deleteNamespacedSecret({ name, namespace, body: { preconditions } }, options));
    } catch (err) {
      if (isKind(err, 'not-found')) return done;
      if (isKind(err, 'conflict')) return requeueAfter(0); // changed since it was read: judged again
      throw err;
    }
    return done;
  }

  /** A new token from the host, written into the Secret; resolves when the next one is due (epoch ms). */
  private async write(subject: TokenSubject, remoteNamespace: string, current: Secret | undefined): Promise<number> {
    const { host } = this.o;
    const secretName = hostTokenSecretName(subject.name);
    // No token is minted for a name another object holds.
    if (current && !isHostTokenSecret(current, this.o.rule)) throw notOwned(remoteNamespace, secretName);
    const expirationSeconds = this.o.settings.expirationSeconds ?? DEFAULT_TOKEN_SECONDS;
    const [token, ca] = await Promise.all([
      requestBoundToken(host, { namespace: subject.namespace, serviceAccount: subject.serviceAccount, pod: { name: subject.name, uid: subject.uid }, expirationSeconds }, () => this.o.clock.now()),
      readRootCa(host, subject.namespace),
    ]);
    if (ca === undefined) throw transient(`host configmap ${subject.namespace}/kube-root-ca.crt has no ca.crt: the host API server's CA cannot be given to the pod`);
    const issuedAt = this.o.clock.now();
    const body = hostTokenSecret({ remoteNamespace, secretName, host: subject, token: token.token, ca, issuedAt, expiresAt: token.expiresAt }, this.o.rule);
    await this.store(body, current);
    this.o.log.debug('wrote a host ServiceAccount token', { namespace: remoteNamespace, name: secretName, serviceAccount: subject.serviceAccount });
    return refreshDueAt(issuedAt, token.expiresAt);
  }

  /** Replace at the uid and resourceVersion of the Secret read (Tether's), else create; a name held by another object is refused. */
  private async store(body: Secret, current: Secret | undefined): Promise<void> {
    const namespace = body.metadata?.namespace ?? '';
    const name = body.metadata?.name ?? '';
    const what = `remote secret ${namespace}/${name}`;
    if (current) {
      const at = { ...body, metadata: { ...body.metadata, ...definedOnly({ uid: current.metadata?.uid, resourceVersion: current.metadata?.resourceVersion }) } };
      await this.o.remote.call('other', operation('update', what), (core, options) => core.replaceNamespacedSecret({ name, namespace, body: at }, options));
      return;
    }
    try {
      await this.o.remote.call('other', operation('create', what), (core, options) => core.createNamespacedSecret({ namespace, body }, options));
    } catch (err) {
      if (!isKind(err, 'already-exists')) throw err;
      const existing = await this.readSecret(namespace, name);
      if (!existing || !isHostTokenSecret(existing, this.o.rule)) throw notOwned(namespace, name);
      await this.store(body, existing);
    }
  }

  private async readSecret(namespace: string, name: string): Promise<Secret | undefined> {
    try {
      return await this.o.remote.call('other', operation('get', `remote secret ${namespace}/${name}`), (core, options) => core.readNamespacedSecret({ name, namespace }, options));
    } catch (err) {
      if (isKind(err, 'not-found')) return undefined;
      throw err;
    }
  }
}

/** The host pod a token is asked for at create. */
export function subjectOfHostPod(pod: Pod, serviceAccount: string): TokenSubject {
  return {
    namespace: pod.metadata?.namespace ?? 'default', name: pod.metadata?.name ?? '',
    uid: pod.metadata?.annotations?.[hostUidAnnotation] ?? pod.metadata?.uid ?? '', serviceAccount,
  };
}
