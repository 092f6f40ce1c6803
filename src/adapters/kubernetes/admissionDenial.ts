/**
 * Which check refused a write with 403, read once here (the adapter boundary) so callers branch
 * on a name, never on message text.
 *
 * kube-apiserver v1.36.3 answers every one of these the same way (403, reason Forbidden, details
 * `{ name, kind }`, no causes), because RBAC, PodSecurity, ResourceQuota and LimitRanger all build
 * their answer with apimachinery's `NewForbidden` (recorded bodies:
 * test/adapters/kubernetes/fixtures/admissionDenials.json). The one structural hint is
 * `details.name`: the authorizer runs before the body is read, so an RBAC refusal of a create
 * names no object, while admission does. The rest is said only in words, so this is the one
 * matcher of API message text in Tether; the phrases are the plugins' own format strings.
 * Denials the API server sends with another status need no matcher: a ValidatingAdmissionPolicy
 * answers 422 Invalid by default, a webhook 400 unless it sets a code; both are 'invalid-input'.
 */

export const ADMISSION_DENIALS = [
  /** PodSecurity admission: the pod breaks the namespace's enforced level. */
  'pod-security',
  /** LimitRanger: a request or limit outside the namespace's LimitRange. */
  'limit-range',
  /** ResourceQuota: a quota tracks a resource the pod does not declare ("must specify"). */
  'quota-requires',
  /** ResourceQuota: the namespace's quota is used up (clears when other pods end). */
  'quota-exceeded',
  /** A validating or mutating admission webhook refused with 403. */
  'webhook',
  /** A ValidatingAdmissionPolicy whose binding asks for reason Forbidden. */
  'admission-policy',
  /** The authorizer (RBAC): the caller may not do this at all. */
  'authorization',
] as const;

export type AdmissionDenial = (typeof ADMISSION_DENIALS)[number];

/** Message phrases, in order: "failed quota … must specify" before the generic quota words. */
const PHRASES: ReadonlyArray<readonly [RegExp, AdmissionDenial]> = [
  [/violates PodSecurity /, 'pod-security'],
  [/failed quota: .*: must specify /, 'quota-requires'],
  [/exceeded quota: /, 'quota-exceeded'],
  [/(maximum|minimum) \S+ usage per (Container|Pod) is |max limit to request ratio per (Container|Pod) is /, 'limit-range'],
  [/admission webhook ".*" denied the request/, 'webhook'],
  [/ValidatingAdmissionPolicy '.*' with binding '.*' denied request/, 'admission-policy'],
  [/ cannot \S+ resource "/, 'authorization'],
];

/** The facts of a 403 this reads: the Status message and its `details.kind` and `details.name`. */
export interface ForbiddenAnswer {
  readonly message: string;
  readonly detailsKind?: string;
  readonly detailsName?: string;
}

/**
 * The check behind a 403, or undefined when the answer matches none (callers treat an unknown
 * refusal as one that may clear: it is about the cluster, not provably about the request).
 */
export function admissionDenialOf(answer: ForbiddenAnswer): AdmissionDenial | undefined {
  for (const [phrase, denial] of PHRASES) if (phrase.test(answer.message)) return denial;
  // The authorizer answers before the object's name is known; no admission plugin does.
  return answer.detailsKind !== undefined && answer.detailsName === undefined ? 'authorization' : undefined;
}
