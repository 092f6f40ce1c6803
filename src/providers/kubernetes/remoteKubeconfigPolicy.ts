/**
 * What a remote kubeconfig read from a Secret may contain. Whoever can write that Secret would
 * otherwise choose what Tether runs (`exec` credential plugins), which plugin code it loads
 * (`auth-provider`), or which local file it sends as a bearer token to a server of their choice
 * (`tokenFile`, e.g. Tether's own ServiceAccount token). These are refused unless the node's
 * config opts in (`remote.secret.allow`); a kubeconfig file on disk is the operator's own and is
 * not checked.
 */
import { parse } from 'yaml';

export const CREDENTIAL_FIELDS = ['exec', 'auth-provider', 'tokenFile'] as const;
export type CredentialField = (typeof CREDENTIAL_FIELDS)[number];

const WHY: Record<CredentialField, string> = {
  exec: 'runs a program inside Tether',
  'auth-provider': 'loads an auth-provider plugin inside Tether',
  tokenFile: 'sends a file of Tether\'s filesystem as a bearer token',
};

export interface CredentialUse {
  /** Where in the kubeconfig, e.g. `users[0].user.exec` (or `users[name=ci].user.exec`). */
  readonly path: string;
  readonly field: CredentialField;
  readonly why: string;
}

/** The credential fields a kubeconfig uses, by user; unparseable text is left to the loader's error. */
export function credentialFields(kubeconfigYaml: string): CredentialUse[] {
  let doc: unknown;
  try {
    doc = parse(kubeconfigYaml);
  } catch {
    return [];
  }
  const users = (doc as { users?: unknown } | null)?.users;
  if (!Array.isArray(users)) return [];
  const out: CredentialUse[] = [];
  users.forEach((entry: unknown, i) => {
    const user = (entry as { user?: unknown } | null)?.user;
    if (user === null || typeof user !== 'object') return;
    const name = (entry as { name?: unknown }).name;
    const at = typeof name === 'string' && name !== '' ? `users[name=${name}]` : `users[${i}]`;
    for (const field of CREDENTIAL_FIELDS) {
      const value = (user as Record<string, unknown>)[field];
      if (value !== undefined && value !== null && value !== '') out.push({ path: `${at}.user.${field}`, field, why: WHY[field] });
    }
  });
  return out;
}

/** The refusals for a Secret's kubeconfig given what the node allows: one message per use, empty when none. */
export function refusedCredentials(kubeconfigYaml: string, allowed: readonly CredentialField[], where: string): string[] {
  return credentialFields(kubeconfigYaml)
    .filter((use) => !allowed.includes(use.field))
    .map((use) => `${where}: ${use.path} ${use.why}; refused (to allow it, set remote.secret.allow: [${use.field}] on this node)`);
}
