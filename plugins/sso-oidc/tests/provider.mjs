// provider.mjs — a real OpenID Provider (npm's oidc-provider) for the
// sso-oidc end-to-end test, on 127.0.0.1:$OIDC_PORT, issuer
// http://127.0.0.1:$OIDC_PORT. Run: node provider.mjs <node_modules dir>.
//
// Clients (redirect URIs from $OIDC_REDIRECT_URIS, a JSON array):
//   cube     secret cube-secret     client_secret_basic  ID tokens RS256
//   cube-es  secret cube-es-secret  client_secret_post   ID tokens ES256
// PKCE is required for both. Signing keys (RS256 and ES256) are made at
// start. The development login/consent pages accept any login name and
// password; findAccount answers the claims below (groups included), and
// scope claims are put in the ID token (conformIdTokenClaims: false).
import { generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = process.argv[2];
const require = createRequire(path.join(modules, 'noop.js'));
const { default: Provider } = await import(pathToFileURL(require.resolve('oidc-provider')).href);

const port = Number(process.env.OIDC_PORT);
const issuer = `http://127.0.0.1:${port}`;
const redirectUris = JSON.parse(process.env.OIDC_REDIRECT_URIS || '[]');

const ACCOUNTS = {
  alice: { name: 'Alice Liddell', email: 'alice@example.org',
           groups: ['cube-admins', 'vision-devs', 'nlp-viewers'] },
  bob: { name: 'Bob Builder', email: 'bob@example.org', groups: ['vision-viewers'] },
};

function signingKey(type, alg, kid) {
  const opts = type === 'rsa' ? { modulusLength: 2048 } : { namedCurve: 'P-256' };
  const { privateKey } = generateKeyPairSync(type, opts);
  return { ...privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' };
}

const client = (id, secret, auth, alg) => ({
  client_id: id, client_secret: secret, redirect_uris: redirectUris,
  grant_types: ['authorization_code'], response_types: ['code'],
  token_endpoint_auth_method: auth, id_token_signed_response_alg: alg,
});

const provider = new Provider(issuer, {
  clients: [
    client('cube', 'cube-secret', 'client_secret_basic', 'RS256'),
    client('cube-es', 'cube-es-secret', 'client_secret_post', 'ES256'),
  ],
  jwks: { keys: [signingKey('rsa', 'RS256', 'rsa-1'), signingKey('ec', 'ES256', 'ec-1')] },
  pkce: { required: () => true },
  claims: { openid: ['sub'], profile: ['name', 'preferred_username'],
            email: ['email', 'email_verified'], groups: ['groups'] },
  scopes: ['openid', 'profile', 'email', 'groups'],
  conformIdTokenClaims: false,
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ['cube-e2e-cookie-key'] },
  async findAccount(ctx, sub) {
    const a = ACCOUNTS[sub] || { name: sub, email: `${sub}@example.org`, groups: [] };
    return {
      accountId: sub,
      async claims() {
        return { sub, preferred_username: sub, email_verified: true, ...a };
      },
    };
  },
});
provider.on('server_error', (ctx, err) => console.error('server_error', err));
provider.listen(port, '127.0.0.1', () => console.log(`ready ${issuer}`));
