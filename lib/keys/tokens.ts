/**
 * Minting bearer tokens: a compact JWS (JWT) signed with the member's ed25519 key. Header
 * `{alg: "EdDSA", typ: "JWT", kid}`; claims `sub`, `scope`, `iat`, `exp`, `jti` and optionally `aud`.
 *
 * @module
 */

import { SignJWT } from "jose";
import { badInput } from "../errors.ts";
import { readKeyFile } from "./key_files.ts";
import { parseScopes } from "./scopes.ts";

/** The longest token lifetime, enforced at mint and at verify (7 days). */
export const MAX_TTL_SECONDS = 604_800;

/** The default token lifetime (15 minutes). */
export const DEFAULT_TTL_SECONDS = 900;

/** Options of {@link signToken}. */
export interface SignOptions {
  /** The private key file. */
  keyPath: string;
  /** `sub` (default: the key file's name). */
  subject?: string;
  /** Scopes; without any the token carries `*` (it can never exceed its key's scopes). */
  scopes?: string[];
  /** Lifetime in seconds (default 900, at most 604800). */
  ttl?: number;
  /** Binds the token to one harness id (`aud`). */
  audience?: string;
}

/** A minted token. */
export interface SignedToken {
  token: string;
  key_id: string;
  subject: string;
  scopes: string[];
  expires_at: string;
}

/**
 * Mints a token.
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * import { defaultKeysDir } from "../paths.ts";
 *
 * // The file `framework keys generate alice` wrote (a path as given: no `~` expansion).
 * const keyPath = join(defaultKeysDir(), "alice.pem");
 * const { token } = await signToken({ keyPath, scopes: ["run"] });
 * ```
 * @param options Key, subject, scopes, ttl, audience.
 * @returns The token and what it says.
 */
export async function signToken(options: SignOptions): Promise<SignedToken> {
  const ttl = options.ttl ?? DEFAULT_TTL_SECONDS;
  if (!Number.isInteger(ttl) || ttl < 1) {
    throw badInput(`--ttl must be a whole number of seconds, got ${JSON.stringify(ttl)}`);
  }
  if (ttl > MAX_TTL_SECONDS) {
    throw badInput(
      `--ttl ${ttl} is over the 7-day maximum (${MAX_TTL_SECONDS} seconds, MAX_TTL_SECONDS)`,
    );
  }
  const scopes = options.scopes?.length ? parseScopes(options.scopes) : ["*"];
  const key = await readKeyFile(options.keyPath);
  const subject = options.subject ?? options.keyPath.split(/[\\/]/).pop()!.replace(/\.pem$/, "");
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + ttl;
  let jwt = new SignJWT({ scope: scopes.join(" ") })
    .setProtectedHeader({ alg: "EdDSA", typ: "JWT", kid: key.key_id })
    .setSubject(subject)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(crypto.randomUUID());
  if (options.audience) jwt = jwt.setAudience(options.audience);
  return {
    token: await jwt.sign(key.privateKey),
    key_id: key.key_id,
    subject,
    scopes,
    expires_at: new Date(exp * 1000).toISOString(),
  };
}
