// A JSON Web Key Set served on loopback, as JWKS_URL names one deployed (Supabase's asymmetric keys):
// one ES256 key, a count of the times the set was fetched, and person tokens signed with it.
import * as jose from "jose";

export interface JwksServer {
  url: string;
  /** how many times the key set was fetched */
  fetches(): number;
  /** a person JWT with Supabase's claims, signed with the set's private key */
  sign(claims: { sub: string; email?: string }): Promise<string>;
  close(): Promise<void>;
}

export async function serveJwks(): Promise<JwksServer> {
  const { publicKey, privateKey } = await jose.generateKeyPair("ES256");
  const kid = crypto.randomUUID();
  const jwk = { ...(await jose.exportJWK(publicKey)), kid, alg: "ES256", use: "sig" };
  let fetches = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    fetches++;
    return Response.json({ keys: [jwk] });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/auth/v1/.well-known/jwks.json`,
    fetches: () => fetches,
    sign: ({ sub, email }) =>
      new jose.SignJWT({ email, role: "authenticated", aud: "authenticated" })
        .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
        .setSubject(sub)
        .setIssuedAt()
        .setExpirationTime("10m")
        .sign(privateKey),
    close: () => server.shutdown(),
  };
}
