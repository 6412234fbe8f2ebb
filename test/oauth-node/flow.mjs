// An independent OAuth client, oauth4webapi, against the platform. The Go
// test plays the user: this script prints the authorization URL, the test
// signs in and approves, then writes the callback URL back on stdin.
// Every check here is oauth4webapi's own: RFC 8414 discovery, PKCE, state,
// the code exchange, RFC 9068 access-token validation against the JWKS,
// userinfo, refresh rotation, reuse rejection and RFC 7009 revocation.
import * as oauth from 'oauth4webapi'
import { createInterface } from 'node:readline'

const env = (k) => {
  const v = process.env[k]
  if (!v) throw new Error(`missing ${k}`)
  return v
}
const issuer = new URL(env('ISSUER'))
const redirectURI = env('REDIRECT_URI')
const audience = env('AUDIENCE')
const client = { client_id: env('CLIENT_ID') }
const clientAuth = oauth.ClientSecretBasic(env('CLIENT_SECRET'))
const insecure = { [oauth.allowInsecureRequests]: true } // the test server speaks plain http on loopback
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n')

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
const nextLine = async () => (await lines.next()).value

const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }))

const verifier = oauth.generateRandomCodeVerifier()
const state = oauth.generateRandomState()
const authURL = new URL(as.authorization_endpoint)
authURL.searchParams.set('client_id', client.client_id)
authURL.searchParams.set('redirect_uri', redirectURI)
authURL.searchParams.set('response_type', 'code')
authURL.searchParams.set('scope', env('SCOPE'))
authURL.searchParams.set('state', state)
authURL.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier))
authURL.searchParams.set('code_challenge_method', 'S256')
out({ authorize: authURL.href })

const params = oauth.validateAuthResponse(as, client, new URL(await nextLine()), state)
const tokens = await oauth.processAuthorizationCodeResponse(as, client,
  await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectURI, verifier, insecure))

const apiRequest = (token) => new Request(new URL('/crm/consumers', audience), { headers: { authorization: `Bearer ${token}` } })
const claims = await oauth.validateJwtAccessToken(as, apiRequest(tokens.access_token), audience, insecure)

const info = await oauth.processUserInfoResponse(as, client, claims.sub,
  await oauth.userInfoRequest(as, client, tokens.access_token, insecure))

const refreshed = await oauth.processRefreshTokenResponse(as, client,
  await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token, insecure))
const refreshedClaims = await oauth.validateJwtAccessToken(as, apiRequest(refreshed.access_token), audience, insecure)

let reuseError = null
try {
  await oauth.processRefreshTokenResponse(as, client,
    await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token, insecure))
} catch (e) {
  reuseError = e.error ?? e.code ?? String(e)
}

// A fresh grant to revoke (the reuse above revoked the first family).
out({ authorize: (() => { authURL.searchParams.set('state', state); return authURL.href })() })
const params2 = oauth.validateAuthResponse(as, client, new URL(await nextLine()), state)
const tokens2 = await oauth.processAuthorizationCodeResponse(as, client,
  await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params2, redirectURI, verifier, insecure))
await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, tokens2.access_token, insecure))

out({
  result: {
    issuer: as.issuer, token_type: tokens.token_type, expires_in: tokens.expires_in, scope: tokens.scope,
    claims, userinfo: info, refreshed_scope: refreshed.scope, rotated: refreshed.refresh_token !== tokens.refresh_token,
    refreshed_jti: refreshedClaims.jti, reuse_error: reuseError, revoked_access_token: tokens2.access_token,
    refreshed_access_token: refreshed.access_token,
  },
})
process.exit(0)
