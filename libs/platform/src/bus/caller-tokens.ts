import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { AppError, anonymousCaller, type Caller } from '@qw/contracts';
import { createSigner, createVerifier } from 'fast-jwt';

/**
 * Caller tokens: how a service learns who a request is for without taking the frame's word for
 * it. The gateway, after checking the person's access token, signs a short-lived assertion with
 * its Ed25519 private key; every service holds the public half and verifies the assertion on
 * every request. A service can forward what it received (the assertion travels with the Caller)
 * but cannot make one, and nobody else on the bus can either.
 */
const audience = 'quietwire-rpc';
const issuer = 'gateway';
/**
 * Long enough for a request and the calls it makes on the person's behalf; short enough to be
 * useless later. The gateway signs for less (its RPC timeout and a margin, see its app): an
 * assertion says what the person might do when it was made, and a removed admin's must not outlive
 * the removal by more than the request it was made for.
 */
export const callerTokenSeconds = 60;

type CallerClaims = { sub: string; acct: string | null; adm: boolean; ver: boolean };

/** A new key pair as single-line base64 DER (PKCS#8 private, SPKI public), for the environment. */
export function generateCallerKeyPair(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  };
}

function privatePem(base64Der: string): string {
  const key = createPrivateKey({ key: Buffer.from(base64Der, 'base64'), format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the caller token private key must be Ed25519');
  return key.export({ format: 'pem', type: 'pkcs8' }).toString();
}

function publicPem(base64Der: string): string {
  const key = createPublicKey({ key: Buffer.from(base64Der, 'base64'), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the caller token public key must be Ed25519');
  return key.export({ format: 'pem', type: 'spki' }).toString();
}

/** The gateway's side: a person's Caller with its signed assertion attached, valid `lifetimeSeconds`. */
export function callerTokenSigner(
  privateKeyBase64: string,
  lifetimeSeconds = callerTokenSeconds,
): (caller: Caller) => Caller {
  const sign = createSigner({
    key: privatePem(privateKeyBase64),
    algorithm: 'EdDSA',
    aud: audience,
    iss: issuer,
    expiresIn: lifetimeSeconds * 1000,
  });
  return (caller) => {
    if (!caller.userId) return anonymousCaller;
    const claims: CallerClaims = {
      sub: caller.userId,
      acct: caller.accountType,
      adm: caller.isAdmin,
      ver: caller.emailVerified,
    };
    return { ...caller, assertion: sign(claims) };
  };
}

/**
 * A service's side: the Caller an assertion proves, or `invalid_token` when it proves nothing.
 * While the gateway's key is replaced, `previousPublicKeyBase64` is the key it replaces: an
 * assertion the gateway signed before it took the new key still proves its caller, for the minute
 * it lives.
 */
export function callerTokenVerifier(
  publicKeyBase64: string,
  previousPublicKeyBase64?: string,
): (token: string) => Caller {
  const verifiers = [publicKeyBase64, ...(previousPublicKeyBase64 ? [previousPublicKeyBase64] : [])].map((key) =>
    createVerifier({
      key: publicPem(key),
      algorithms: ['EdDSA'],
      allowedAud: audience,
      allowedIss: issuer,
      requiredClaims: ['sub', 'exp'],
      // A forwarded assertion is checked by every service it reaches; the signature once each.
      cache: 10_000,
    }),
  );
  const verify = (token: string): unknown => {
    let failure: unknown;
    for (const verifier of verifiers) {
      try {
        return verifier(token);
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  };
  return (token) => {
    let claims: CallerClaims;
    try {
      claims = verify(token) as CallerClaims;
    } catch {
      throw new AppError('invalid_token', 'The caller of this request could not be verified.');
    }
    if (typeof claims.sub !== 'string' || typeof claims.adm !== 'boolean' || typeof claims.ver !== 'boolean') {
      throw new AppError('invalid_token', 'The caller of this request could not be verified.');
    }
    return {
      userId: claims.sub,
      accountType: typeof claims.acct === 'string' ? claims.acct : null,
      isAdmin: claims.adm,
      emailVerified: claims.ver,
      assertion: token,
    };
  };
}
