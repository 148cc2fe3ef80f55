/**
 * Bearer-token verification for the control plane. The key store is read fresh on every call (no
 * cache), so a revocation takes effect on the very next request, and an unreadable store refuses
 * everything. Messages say which rule failed and never echo the token.
 *
 * Why the checks are written here and not left to jose's `jwtVerify`: the contract's rules differ
 * from `jwtVerify`'s in ways its options cannot express: `exp` and `iat` are both required and
 * `exp - iat` is bounded by the maximum TTL, `iat` may not lie in the future, `aud` is checked
 * only when the token carries one, key headers (`jwk`, `jku`, `x5*`) are refused rather than
 * ignored, two `alg` spellings are accepted, the key is chosen by `kid` from a store read fresh per
 * call, and each failure has its own message (jose's error codes would collapse several). Since
 * the header is parsed and checked here anyway, the signature is checked here too, over the JWS
 * signing input (jose's `compactVerify` would parse the header a second time: a tenth of an
 * authenticated request's time), by `ed25519Check` (inline or on the thread pool, whichever costs
 * less at the moment). A signature that held is remembered with the stored public key it held
 * under ({@link signatureHolds}): the same token under the same key is not checked again, while the
 * store is still read, the key looked up and every other rule checked on each call. The attack
 * tests in `tests/keys/` pin each rule.
 *
 * @module
 */

import { FrameworkError } from "../errors.ts";
import { fromBase64Url } from "./key_material.ts";
import { ed25519Check } from "./signature_check.ts";
import { type AuthorizedKey, CorruptStoreError, readKeyStore } from "./key_store.ts";
import { covers, effectiveScopes } from "./scopes.ts";
import { MAX_TTL_SECONDS } from "./tokens.ts";

/** Who made an authenticated request. */
export interface Principal {
  key_id: string;
  /** The key's name in the store. */
  name: string;
  /** The token's `sub`. */
  subject: string | null;
  /** What the request may do: the intersection of the key's and the token's scopes. */
  scopes: string[];
  jti: string | null;
  expires_at: string;
}

/** Options of {@link authenticate}. */
export interface AuthenticateOptions {
  /** The served harness id: a token with `aud` must name it. */
  audience?: string;
  /** The current time in seconds (tests). */
  now?: number;
}

/** Accepted `alg` values: EdDSA (RFC 8037) and Ed25519 (RFC 9864). */
const ALGORITHMS = ["EdDSA", "Ed25519"];
/** Headers that would let a token pick its own key; never honoured. */
const KEY_HEADERS = ["jwk", "jku", "x5u", "x5c", "x5t", "x5t#S256"];
/** How far in the future `iat` may be (clock skew). */
const IAT_LEEWAY_S = 60;

function unauthorized(message: string): FrameworkError {
  return new FrameworkError("unauthorized", message);
}

/** Strict UTF-8 (stateless when not streaming, so one serves every call). */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

function decodeJson(segment: string): Record<string, unknown> | undefined {
  const bytes = fromBase64Url(segment);
  if (!bytes) return undefined;
  try {
    const v = JSON.parse(UTF8.decode(bytes));
    return v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Extracts the bearer token of an `Authorization` header.
 *
 * @param header The header value.
 * @returns The token.
 */
export function bearerToken(header: string | null): string {
  if (header === null || header.trim() === "") {
    throw unauthorized(
      "Missing bearer token: send `Authorization: Bearer <token>` (mint one with `framework keys sign`)",
    );
  }
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  if (!m) throw unauthorized("The Authorization header must be `Bearer <token>`");
  return m[1]!;
}

const ASCII = new TextEncoder();

/**
 * Whether a compact JWS's Ed25519 signature over its signing input (`header.payload`, RFC 7515
 * §5.2) holds under a key. The header was parsed and checked before (alg, no key headers, no crit,
 * no b64), so only the signature is left: 64 bytes.
 */
function signatureHolds(parts: string[], key: AuthorizedKey): boolean | Promise<boolean> {
  const seen = `${key.public_key}.${parts[0]}.${parts[1]}.${parts[2]}`;
  if (heldBefore.delete(seen)) {
    heldBefore.add(seen); // the most recently used goes last
    return true;
  }
  const signature = fromBase64Url(parts[2]!);
  if (!signature) return false;
  const held = ed25519Check(key.public_key, signature, ASCII.encode(`${parts[0]}.${parts[1]}`));
  if (seen.length > MAX_HELD_CHARS) return held;
  if (held === true) remember(seen);
  else if (held !== false) held.then((ok) => ok && remember(seen), () => {});
  return held;
}

/**
 * Signatures that held, as the stored public key they held under and the whole token: whether an
 * Ed25519 signature holds depends on those alone, so a token sent again (a client polling with one
 * token, a deployment's every request) costs its check once. A key removed, revoked or replaced in
 * the store is refused before this is consulted (or is another entry), and the token's times,
 * audience and scopes are checked on every call. Only tokens that verified are kept (minting one
 * takes an authorized private key), the least recently used going first past the bound.
 */
const heldBefore = new Set<string>();
const MAX_HELD = 1024;
/** A token longer than this (a minted token is a few hundred characters) is checked every time. */
const MAX_HELD_CHARS = 4096;

function remember(seen: string): void {
  if (heldBefore.size >= MAX_HELD) heldBefore.delete(heldBefore.values().next().value!);
  heldBefore.add(seen);
}

/**
 * Authenticates a request for a scope.
 *
 * @example
 * ```ts
 * const storePath = "./support-bot/.framework/authorized_keys.json";
 * Deno.serve(async (request) => {
 *   const who = await authenticate(request, storePath, "run", { audience: "support-bot" });
 *   return Response.json({ ok: true, data: { key_id: who.key_id, scopes: who.scopes } });
 * });
 * ```
 * @param request The request (only its `Authorization` header is read), or the header value.
 * @param storePath The authorized-key store.
 * @param requiredScope The scope the endpoint needs, or null for "any valid token".
 * @param options The served harness id, the time.
 * @returns The principal.
 * @throws FrameworkError `unauthorized` (401), `forbidden` (403), or `internal` (500) for a corrupt store.
 */
export async function authenticate(
  request: Request | string | null,
  storePath: string,
  requiredScope: string | null,
  options: AuthenticateOptions = {},
): Promise<Principal> {
  const header = request instanceof Request ? request.headers.get("authorization") : request;
  const { parts, kid } = readTokenHeader(bearerToken(header));
  const key = await signingKey(parts, kid, storePath);
  const { claims, exp } = readClaims(parts[1]!, options);
  const tokenScopes = typeof claims.scope === "string"
    ? claims.scope.split(/\s+/).filter(Boolean)
    : [];
  if (
    requiredScope !== null &&
    !(covers(key.scopes, requiredScope) && covers(tokenScopes, requiredScope))
  ) {
    throw new FrameworkError(
      "forbidden",
      `This needs scope ${JSON.stringify(requiredScope)}: the key holds ${
        JSON.stringify(key.scopes.join(" ") || "nothing")
      } and the token carries ${
        JSON.stringify(tokenScopes.join(" ") || "nothing")
      }; both must cover it`,
      { required_scope: requiredScope, key_id: key.key_id },
    );
  }
  return {
    key_id: key.key_id,
    name: key.name,
    subject: typeof claims.sub === "string" ? claims.sub : null,
    scopes: effectiveScopes(key.scopes, tokenScopes),
    jti: typeof claims.jti === "string" ? claims.jti : null,
    expires_at: new Date(exp * 1000).toISOString(),
  };
}

/**
 * Splits a token into its three parts and checks its protected header: an accepted `alg`, no header
 * that would choose its own key, no critical extensions, no unencoded payload, a string `kid`.
 */
function readTokenHeader(token: string): { parts: string[]; kid: string | undefined } {
  const parts = token.split(".");
  if (
    parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p)) || !parts[0] ||
    !parts[1] || !parts[2]
  ) {
    throw unauthorized("Malformed token: expected a compact JWS (three base64url parts)");
  }
  const protectedHeader = decodeJson(parts[0]);
  if (!protectedHeader) throw unauthorized("Malformed token: the header is not base64url JSON");
  const alg = protectedHeader.alg;
  if (typeof alg !== "string" || !ALGORITHMS.includes(alg)) {
    throw unauthorized(
      `Token algorithm ${
        JSON.stringify(alg ?? null)
      } is not accepted: tokens are signed with EdDSA (ed25519)`,
    );
  }
  const embedded = KEY_HEADERS.filter((h) => h in protectedHeader);
  if (embedded.length) {
    throw unauthorized(
      `The token header carries ${embedded.join(", ")}; keys are only taken from the store`,
    );
  }
  if ("crit" in protectedHeader) {
    throw unauthorized("The token header has critical extensions this server does not understand");
  }
  if (protectedHeader.b64 !== undefined) {
    throw unauthorized("Unencoded-payload tokens are not accepted");
  }
  const kid = protectedHeader.kid;
  if (kid !== undefined && typeof kid !== "string") {
    throw unauthorized("The token's kid is not a string");
  }
  return { parts, kid };
}

/**
 * The authorized key whose signature the token carries, from the store read fresh: the `kid`'s key
 * (unknown and revoked keys refused), or without a `kid` the first unrevoked key that verifies.
 */
async function signingKey(
  parts: string[],
  kid: string | undefined,
  storePath: string,
): Promise<AuthorizedKey> {
  let keys: AuthorizedKey[];
  try {
    keys = await readKeyStore(storePath);
  } catch (err) {
    if (err instanceof CorruptStoreError) {
      console.error(
        `error: the authorized-key store ${err.path} is unusable (${err.why}); refusing every request`,
      );
    }
    throw err;
  }
  let candidates: AuthorizedKey[];
  if (kid !== undefined) {
    const matches = keys.filter((k) => k.key_id === kid);
    if (!matches.length) throw unauthorized("The token's key is not authorized here (unknown kid)");
    candidates = matches.filter((k) => k.revoked_at === null);
    if (!candidates.length) throw unauthorized("The token's key has been revoked");
  } else {
    candidates = keys.filter((k) => k.revoked_at === null);
  }
  let key: AuthorizedKey | undefined;
  for (const k of candidates) {
    if (await signatureHolds(parts, k)) {
      key = k;
      break;
    }
  }
  if (!key) {
    throw unauthorized(
      kid !== undefined
        ? "Invalid token signature"
        : "The token is not signed by any authorized key",
    );
  }
  return key;
}

/**
 * Reads the token's claims and checks its times (`exp` and `iat` required, the lifetime bounded,
 * `iat` and `nbf` not in the future) and its audience (checked only when it carries one).
 */
function readClaims(
  payload: string,
  options: AuthenticateOptions,
): { claims: Record<string, unknown>; exp: number } {
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(UTF8.decode(fromBase64Url(payload)));
    if (!claims || typeof claims !== "object" || Array.isArray(claims)) throw new Error();
  } catch {
    throw unauthorized("Malformed token: the claims are not a JSON object");
  }
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const { exp, iat, nbf, aud } = claims;
  if (typeof exp !== "number" || typeof iat !== "number") {
    throw unauthorized("The token must carry numeric exp and iat claims");
  }
  if (exp <= now) {
    throw unauthorized("The token has expired; mint a new one with `framework keys sign`");
  }
  if (iat > now + IAT_LEEWAY_S) {
    throw unauthorized("The token was issued in the future (iat); check the clocks");
  }
  if (exp - iat > MAX_TTL_SECONDS) {
    throw unauthorized(`The token lives longer than the 7-day maximum (${MAX_TTL_SECONDS} s)`);
  }
  if (exp < iat) throw unauthorized("The token expires before it was issued");
  if (nbf !== undefined && (typeof nbf !== "number" || nbf > now + IAT_LEEWAY_S)) {
    throw unauthorized("The token is not valid yet (nbf)");
  }
  if (aud !== undefined) {
    const audiences = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : null;
    if (!audiences || !options.audience || !audiences.includes(options.audience)) {
      throw unauthorized("The token is bound to another harness (aud)");
    }
  }
  return { claims, exp };
}
