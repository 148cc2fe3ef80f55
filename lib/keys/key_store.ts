/**
 * The authorized-key store of a harness (`<harness>/.framework/authorized_keys.json`, or
 * `--authorized-keys`, or `$FRAMEWORK_AUTHORIZED_KEYS`): public keys the operator allowed, with their
 * scopes. Rows are never deleted; revoking sets `revoked_at`. Writes are atomic under a lock; a corrupt
 * store is reported and never replaced.
 *
 * @module
 */

import { dirname } from "node:path";
import { badInput, FrameworkError, notFound } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic_write.ts";
import { withFileLock } from "../fs/file_lock.ts";
import { checkPublicKey, keyIdOf, PUBLIC_KEY_PATTERN } from "./key_material.ts";
import { parseScopes, SCOPES } from "./scopes.ts";

/** One authorized key. */
export interface AuthorizedKey {
  name: string;
  public_key: string;
  key_id: string;
  scopes: string[];
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
}

interface StoreFile {
  version: 1;
  keys: AuthorizedKey[];
}

/** Why a store could not be read: it exists but is not a valid store. */
export class CorruptStoreError extends FrameworkError {
  /**
   * @param path The store file.
   * @param why What is wrong.
   */
  constructor(readonly path: string, readonly why: string) {
    super(
      "internal",
      "The authorized-key store cannot be read, so every request is refused until an operator fixes it",
      {},
    );
  }
}

function isIso(v: unknown): boolean {
  return typeof v === "string" && !Number.isNaN(Date.parse(v));
}

function checkRow(row: unknown, i: number): string | undefined {
  if (!row || typeof row !== "object") return `keys[${i}] is not an object`;
  const r = row as Record<string, unknown>;
  if (typeof r.name !== "string" || !r.name) return `keys[${i}].name is missing`;
  if (typeof r.public_key !== "string" || !PUBLIC_KEY_PATTERN.test(r.public_key)) {
    return `keys[${i}].public_key is not a 43-character key`;
  }
  if (typeof r.key_id !== "string" || !PUBLIC_KEY_PATTERN.test(r.key_id)) {
    return `keys[${i}].key_id is not a 43-character key id`;
  }
  if (
    !Array.isArray(r.scopes) || !r.scopes.every((s) => (SCOPES as readonly unknown[]).includes(s))
  ) {
    return `keys[${i}].scopes holds an unknown scope`;
  }
  if (!isIso(r.created_at) || !isIso(r.updated_at)) return `keys[${i}] has bad times`;
  if (r.revoked_at !== null && !isIso(r.revoked_at)) {
    return `keys[${i}].revoked_at is neither null nor a time`;
  }
  return undefined;
}

/**
 * Reads the store fresh (no cache): the file is read on every call, so a revocation applies to the
 * very next request. A missing store has no keys; an unreadable or corrupt one throws
 * {@link CorruptStoreError} (fail closed). Only the checking of the text is skipped when the text is
 * exactly the one read last time from the same path (every request of a server reads the same
 * bytes); the rows are then the same frozen objects.
 *
 * @param path The store file.
 * @returns The keys, revoked ones included (frozen).
 */
export function readKeyStore(path: string): Promise<AuthorizedKey[]> {
  return Promise.resolve(path).then(readStoreFile);
}

function readStoreFile(path: string): AuthorizedKey[] {
  let text: string;
  try {
    // Read fresh on every request (a revocation applies at once); a small local file, read
    // synchronously to skip a thread-pool round trip per request.
    text = Deno.readTextFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw new CorruptStoreError(path, `cannot read it: ${(err as Error).message}`);
  }
  const last = lastChecked.get(path);
  if (last?.text === text) return last.keys;
  let parsed: StoreFile;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new CorruptStoreError(path, `not JSON: ${(err as Error).message}`);
  }
  if (
    !parsed || typeof parsed !== "object" || parsed.version !== 1 || !Array.isArray(parsed.keys)
  ) {
    throw new CorruptStoreError(path, 'expected {"version": 1, "keys": [...]}');
  }
  for (const [i, row] of parsed.keys.entries()) {
    const why = checkRow(row, i);
    if (why) throw new CorruptStoreError(path, why);
  }
  for (const row of parsed.keys) Object.freeze(Object.freeze(row).scopes);
  const keys = Object.freeze(parsed.keys) as AuthorizedKey[];
  if (lastChecked.size >= 64) lastChecked.clear();
  lastChecked.set(path, { text, keys });
  return keys;
}

/** The last text checked per store path, with its rows. */
const lastChecked = new Map<string, { text: string; keys: AuthorizedKey[] }>();

/** Explains a corrupt store for local commands (the HTTP error never names the path). */
function forOperator(err: unknown): unknown {
  if (err instanceof CorruptStoreError) {
    return badInput(
      `The authorized-key store ${err.path} is corrupt (${err.why}); fix it by hand or move it away. It is never replaced automatically`,
      {
        path: err.path,
      },
    );
  }
  return err;
}

async function update<T>(
  path: string,
  fn: (keys: AuthorizedKey[]) => { keys: AuthorizedKey[]; result: T },
): Promise<T> {
  return await withFileLock(`${path}.lock`, async () => {
    let keys: AuthorizedKey[];
    try {
      keys = await readKeyStore(path);
    } catch (err) {
      throw forOperator(err);
    }
    const out = fn(keys);
    await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const file: StoreFile = { version: 1, keys: out.keys };
    await writeFileAtomic(path, JSON.stringify(file, null, 2) + "\n", { mode: 0o600 });
    return out.result;
  });
}

/**
 * Authorizes a public key with scopes (required, no default). Idempotent on key_id: authorizing the
 * same key again updates its scopes (and name) and clears a revocation.
 *
 * @example
 * ```ts
 * // The public key `framework keys generate alice` printed on the member's machine:
 * const publicKey = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
 * await authorizeKey(".framework/authorized_keys.json", "alice", publicKey, ["run", "read"]);
 * ```
 * @param path The store file.
 * @param name A name for the key.
 * @param publicKey The raw public key, base64url.
 * @param scopes The scopes (at least one).
 * @returns `{name, key_id, scopes, created}`.
 */
export async function authorizeKey(
  path: string,
  name: string,
  publicKey: string,
  scopes: string[],
): Promise<{ name: string; key_id: string; scopes: string[]; created: boolean }> {
  if (!name.trim()) throw badInput("Missing key name");
  const key = checkPublicKey(publicKey);
  const parsed = parseScopes(scopes);
  if (!parsed.length) {
    throw badInput(
      "Missing --scope: say what this key may do (run, read, mutate, evolve, or * for a fully trusted admin); there is no default",
    );
  }
  const key_id = await keyIdOf(key);
  type Result = { name: string; key_id: string; scopes: string[]; created: boolean };
  return await update<Result>(path, (keys) => {
    const now = new Date().toISOString();
    const existing = keys.find((k) => k.key_id === key_id);
    if (existing) {
      const next = keys.map((
        k,
      ) => (k.key_id === key_id
        ? { ...k, name, scopes: parsed, updated_at: now, revoked_at: null }
        : k)
      );
      return { keys: next, result: { name, key_id, scopes: parsed, created: false } };
    }
    const row: AuthorizedKey = {
      name,
      public_key: key,
      key_id,
      scopes: parsed,
      created_at: now,
      updated_at: now,
      revoked_at: null,
    };
    return { keys: [...keys, row], result: { name, key_id, scopes: parsed, created: true } };
  });
}

/**
 * Revokes a key: sets `revoked_at` and keeps the row. Revoking an already revoked key keeps its first
 * revocation time.
 *
 * @param path The store file.
 * @param keyId The key id.
 * @returns `{key_id, revoked_at}`.
 */
export async function revokeKey(
  path: string,
  keyId: string,
): Promise<{ key_id: string; revoked_at: string }> {
  return await update(path, (keys) => {
    const row = keys.find((k) => k.key_id === keyId);
    if (!row) {
      throw notFound(
        `Unknown key id ${
          JSON.stringify(keyId)
        }; \`framework keys list\` shows the keys of this store`,
        { key_id: keyId },
      );
    }
    const revoked_at = row.revoked_at ?? new Date().toISOString();
    return {
      keys: keys.map((
        k,
      ) => (k.key_id === keyId ? { ...k, revoked_at, updated_at: new Date().toISOString() } : k)),
      result: { key_id: keyId, revoked_at },
    };
  });
}

/**
 * Lists every key of a store, revoked ones included and marked.
 *
 * @param path The store file.
 * @returns The keys.
 */
export async function listKeys(
  path: string,
): Promise<
  {
    name: string;
    key_id: string;
    public_key: string;
    scopes: string[];
    revoked: boolean;
    revoked_at: string | null;
    created_at: string;
  }[]
> {
  let keys: AuthorizedKey[];
  try {
    keys = await readKeyStore(path);
  } catch (err) {
    throw forOperator(err);
  }
  return keys.map((k) => ({
    name: k.name,
    key_id: k.key_id,
    public_key: k.public_key,
    scopes: k.scopes,
    revoked: k.revoked_at !== null,
    revoked_at: k.revoked_at,
    created_at: k.created_at,
  }));
}
