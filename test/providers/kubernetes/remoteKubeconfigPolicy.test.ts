/**
 * A remote kubeconfig read from a Secret may not make Tether run a program, load an auth plugin or
 * send one of its files as a token, unless the node opts in: the config error names the node, the
 * Secret, its key and the field. Checked here on the pure policy; through createProvider against a
 * real Secret in the host cluster in test/e2e/remoteKubeconfigSecret.test.ts.
 */
import t from 'tap';
import { credentialFields, refusedCredentials } from '../../../src/providers/kubernetes/remoteKubeconfigPolicy.js';
import { EXEC_USER, kubeconfigForUser } from '../../support/kubeconfigText.js';

const EXEC = kubeconfigForUser(EXEC_USER);
const AUTH_PROVIDER = kubeconfigForUser('{ auth-provider: { name: oidc, config: { idp-issuer-url: "https://evil.example" } } }');
const TOKEN_FILE = kubeconfigForUser('{ tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token }');
const PLAIN = kubeconfigForUser('{ token: abc }');

void t.test('exec, auth-provider and tokenFile are found, by user name', async (t) => {
  t.match(credentialFields(EXEC), [{ path: 'users[name=u].user.exec', field: 'exec' }]);
  t.match(credentialFields(AUTH_PROVIDER), [{ path: 'users[name=u].user.auth-provider', field: 'auth-provider' }]);
  t.match(credentialFields(TOKEN_FILE), [{ path: 'users[name=u].user.tokenFile', field: 'tokenFile' }]);
  t.same(credentialFields(PLAIN), []);
  t.same(credentialFields('not: [valid'), [], 'unparseable text is left to the loader');
});

void t.test('refused unless allowed, each refusal naming where and how to allow it', async (t) => {
  t.match(refusedCredentials(EXEC, [], 'node vk: secret ns/s key kubeconfig'), [
    'node vk: secret ns/s key kubeconfig: users[name=u].user.exec runs a program inside Tether; refused (to allow it, set remote.secret.allow: [exec] on this node)',
  ]);
  t.same(refusedCredentials(EXEC, ['exec'], 'x'), []);
  t.equal(refusedCredentials(TOKEN_FILE, ['exec'], 'x').length, 1, 'allowing one field allows only that one');
});
