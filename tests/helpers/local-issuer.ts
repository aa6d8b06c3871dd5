/**
 * An authorization server's signing side, on loopback over real HTTP: key pairs made by jose, a
 * JWKS document serving the published ones (as Keycloak does, at its certs URL), and access tokens
 * signed with any of them. What a server of `auth: { jwt }` trusts in the tests.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

interface IssuerKey {
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export interface TokenOptions {
  /** The key's id (kid); default: the first key made. */
  kid?: string;
  /** Claims over the valid defaults (iss, aud, sub user-1, iat now, exp in five minutes). */
  claims?: JWTPayload;
}

export class LocalIssuer {
  private readonly keys = new Map<string, IssuerKey>();
  private readonly published = new Set<string>();
  /** How many times the JWKS was fetched. */
  jwksFetches = 0;

  private constructor(
    private readonly server: http.Server,
    /** The issuer (iss), Keycloak's form: http://127.0.0.1:<port>/realms/test */
    readonly issuer: string,
    readonly jwksUrl: string,
    /** The audience tokens carry unless told otherwise. */
    readonly audience: string,
  ) {}

  static async start(audience: string): Promise<LocalIssuer> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/realms/test`;
    const issuer = new LocalIssuer(server, base, `${base}/protocol/openid-connect/certs`, audience);
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => issuer.serve(req, res));
    return issuer;
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (req.method !== 'GET' || req.url !== new URL(this.jwksUrl).pathname) return void res.writeHead(404).end();
    this.jwksFetches++;
    const keys = [...this.published].map((kid) => this.keys.get(kid)!.jwk);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
  }

  /** Makes a key pair; `publish`: whether the JWKS lists its public key (a rotation publishes a new one). */
  async addKey(kid: string, alg: 'RS256' | 'ES256', publish = true): Promise<void> {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
    this.keys.set(kid, { alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } });
    if (publish) this.published.add(kid);
  }

  publish(kid: string): void {
    this.published.add(kid);
  }

  /** An access token typed `JWT`, as Auth0, Keycloak and Entra send them. */
  async token(options: TokenOptions = {}): Promise<string> {
    const kid = options.kid ?? this.keys.keys().next().value!;
    const key = this.keys.get(kid);
    if (!key) throw new Error(`no key ${kid}`);
    return this.sign(key.privateKey, { alg: key.alg, kid }, options.claims);
  }

  /** A token signed with `privateKey` under the header given (a forgery, or a key never published). */
  async sign(privateKey: CryptoKey | Uint8Array, header: { alg: string; kid: string }, claims: JWTPayload = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: this.issuer, aud: this.audience, sub: 'user-1', iat: now, exp: now + 300, ...claims })
      .setProtectedHeader({ ...header, typ: 'JWT' })
      .sign(privateKey);
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.server.close((err) => (err ? reject(err) : resolve())));
  }
}
