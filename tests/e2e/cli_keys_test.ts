/**
 * End-to-end tests of `framework keys` (generate, sign, authorize, revoke, list), run as real
 * subprocesses with and without `--json` (docs/security.md, Tokens; docs/http-contract.md, Tokens and
 * the key store; docs/cli.md, Keys; the spec's "Authentication" and "Key commands").
 *
 * Every test has its own FRAMEWORK_HOME and its own harness folders under temporary directories.
 * Tokens are decoded and their signatures checked here with `jose`, independently of lib/keys.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { calculateJwkThumbprint, compactVerify, importJWK } from "jose";
import { newKeyPair } from "../../lib/keys/key_material.ts";
import { type CliResult, runCli } from "../helpers/cli.ts";
import { humanError, humanOk, type Json, jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { tempDir } from "../helpers/temp.ts";

/** Raw ed25519 public keys and key ids: 43 base64url characters. */
const B64URL_43 = /^[A-Za-z0-9_-]{43}$/;
/** A compact JWS: three base64url parts. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** The fields of a store row (docs/http-contract.md, Tokens and the key store). */
const ROW_FIELDS = [
  "created_at",
  "key_id",
  "name",
  "public_key",
  "revoked_at",
  "scopes",
  "updated_at",
];
/** The fields of a `keys list --json` row. */
const LIST_FIELDS = [
  "created_at",
  "key_id",
  "name",
  "public_key",
  "revoked",
  "revoked_at",
  "scopes",
];

/**
 * Runs the CLI with a home. FRAMEWORK_AUTHORIZED_KEYS is blanked (an empty value means unset) so a
 * value in the environment of the test runner cannot redirect the store; `env` may set it again.
 */
function cli(args: string[], home: string, env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, { home, env: { FRAMEWORK_AUTHORIZED_KEYS: "", ...env } });
}

/** Creates a harness with `framework init --json` and returns its folder. */
async function newHarness(home: string, dir: string): Promise<string> {
  const r = await cli(["init", dir, "--json"], home);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return dir;
}

/** The default store of a harness. */
function storeOf(harness: string): string {
  return join(harness, ".framework", "authorized_keys.json");
}

/** The RFC 7638 thumbprint of a raw ed25519 public key (the key id). */
function thumbprint(publicKey: string): Promise<string> {
  return calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: publicKey }, "sha256");
}

/** Decodes one base64url JSON segment of a token. */
function decodeSegment(segment: string): Json {
  const b64 = segment.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
}

/** Decodes a token and checks its signature against a raw public key. */
async function decodeToken(
  token: string,
  publicKey: string,
): Promise<{ header: Json; claims: Json }> {
  assert.match(token, COMPACT_JWS);
  const [h, c] = token.split(".");
  const key = await importJWK({ kty: "OKP", crv: "Ed25519", x: publicKey }, "EdDSA");
  await compactVerify(token, key); // throws on a bad signature
  return { header: decodeSegment(h!), claims: decodeSegment(c!) };
}

/** Reads a store file as parsed JSON. */
async function readStore(path: string): Promise<Json> {
  return JSON.parse(await Deno.readTextFile(path));
}

/** Whether a path exists. */
async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** Permission bits of a path. */
async function modeOf(path: string): Promise<number> {
  return (await Deno.stat(path)).mode! & 0o777;
}

/** Checks a value is an ISO time. */
function assertIso(v: unknown, what: string): void {
  assert.equal(typeof v, "string", what);
  assert.ok(!Number.isNaN(Date.parse(v as string)), `${what} is a time: ${v}`);
}

/** Generates a key with `keys generate --json` and returns its data. */
async function generate(home: string, name: string): Promise<Json> {
  return jsonOk(await cli(["keys", "generate", name, "--json"], home));
}

/**
 * A fresh raw public key (in-process, no subprocess). One key in 64 begins with '-' (and so does one
 * key id in 64), which an argument parser reads as an option; those are skipped here and tested on
 * purpose below.
 */
async function freshPublicKey(): Promise<string> {
  for (;;) {
    const pair = await newKeyPair();
    if (!pair.public_key.startsWith("-") && !pair.key_id.startsWith("-")) return pair.public_key;
  }
}

Deno.test("framework keys generate writes a private key file and prints the public key and key id", async (t) => {
  await using home = await tempDir("fw-home-");
  const keysDir = join(home.path, "keys");
  let alice: Json;

  await t.step("--json: {name, path, public_key, key_id}, mode 0600 in a 0700 folder", async () => {
    alice = await generate(home.path, "alice");
    assert.deepEqual(Object.keys(alice).sort(), ["key_id", "name", "path", "public_key"]);
    assert.equal(alice.name, "alice");
    assert.equal(alice.path, join(keysDir, "alice.pem"));
    assert.match(alice.public_key, B64URL_43);
    assert.match(alice.key_id, B64URL_43);
    assert.equal(
      alice.key_id,
      await thumbprint(alice.public_key),
      "key_id is the RFC 7638 thumbprint",
    );
    assert.equal(await modeOf(alice.path), 0o600);
    assert.equal(await modeOf(keysDir), 0o700);
    const pem = await Deno.readTextFile(alice.path);
    assert.ok(pem.startsWith("-----BEGIN PRIVATE KEY-----"), pem.slice(0, 40));
  });

  let human = "";
  await t.step("human: the public key, the key id and the next commands", async () => {
    human = humanOk(await cli(["keys", "generate", "bob"], home.path));
    const pk = /Public key:\s+(\S+)/.exec(human)?.[1];
    const kid = /Key id:\s+(\S+)/.exec(human)?.[1];
    assert.ok(pk && kid, human);
    assert.match(pk, B64URL_43);
    assert.equal(kid, await thumbprint(pk));
    const path = join(keysDir, "bob.pem");
    assert.ok(human.includes(path), human);
    assert.equal(await modeOf(path), 0o600);
    assert.match(human, /framework keys authorize --harness <dir> --scope run -- bob /);
    assert.ok(human.includes(`framework keys sign --key ${path}`), human);
  });

  await t.step({
    name: "the printed authorize command works as printed",
    fn: async () => {
      const harness = await newHarness(home.path, join(home.path, "h"));
      const line = human.split("\n").find((l) => l.includes("framework keys authorize"))!;
      const args = line.trim().replace("<dir>", harness).split(/\s+/).slice(1);
      // --json goes right after the verb: after a `--` it would be a positional.
      const data = jsonOk(await cli([...args.slice(0, 2), "--json", ...args.slice(2)], home.path));
      assert.equal(data.created, true);
    },
  });

  await t.step("--out-dir writes elsewhere (folder created 0700)", async () => {
    await using other = await tempDir();
    const outDir = join(other.path, "deep", "keys");
    const data = jsonOk(
      await cli(["keys", "generate", "carol", "--out-dir", outDir, "--json"], home.path),
    );
    assert.equal(data.path, join(outDir, "carol.pem"));
    assert.equal(await modeOf(data.path), 0o600);
    assert.equal(await modeOf(outDir), 0o700);
    assert.equal(await exists(join(keysDir, "carol.pem")), false);
    assert.equal(data.key_id, await thumbprint(data.public_key));
  });

  await t.step("the same name again: exit 2, the first file byte-identical", async () => {
    const before = await Deno.readFile(alice.path);
    const err = jsonError(
      await cli(["keys", "generate", "alice", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(err.message, /already exists/);
    const stderr = humanError(await cli(["keys", "generate", "alice"], home.path), 2);
    assert.match(stderr, /already exists/);
    assert.deepEqual(await Deno.readFile(alice.path), before);
    assert.equal(await modeOf(alice.path), 0o600);
  });

  await t.step("a name with a slash: exit 2, nothing written", async () => {
    const err = jsonError(
      await cli(["keys", "generate", "../evil", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(err.message, /slash|name/i);
    humanError(await cli(["keys", "generate", "sub/evil"], home.path), 2);
    assert.equal(await exists(join(home.path, "evil.pem")), false);
    assert.equal(await exists(join(keysDir, "sub")), false);
    const names: string[] = [];
    for await (const e of Deno.readDir(keysDir)) names.push(e.name);
    assert.deepEqual(names.sort(), ["alice.pem", "bob.pem"]);
  });
});

Deno.test("framework keys sign mints an EdDSA JWT with the contract's header and claims", async (t) => {
  await using home = await tempDir("fw-home-");
  const alice = await generate(home.path, "alice");

  let firstJti = "";
  await t.step("human: the bare token alone; defaults sub=key name, scope *, ttl 900", async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await cli(["keys", "sign", "--key", alice.path], home.path);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.ok(r.stdout.endsWith("\n"));
    const token = r.stdout.slice(0, -1);
    assert.doesNotMatch(token, /\s/, "one line, nothing but the token");
    const { header, claims } = await decodeToken(token, alice.public_key);
    assert.deepEqual(header, { alg: "EdDSA", typ: "JWT", kid: alice.key_id });
    assert.deepEqual(Object.keys(claims).sort(), ["exp", "iat", "jti", "scope", "sub"]);
    assert.equal(claims.sub, "alice");
    assert.equal(claims.scope, "*");
    assert.equal(claims.exp - claims.iat, 900);
    assert.ok(Math.abs(claims.iat - before) <= 60, `iat ${claims.iat} is now (${before})`);
    assert.equal(typeof claims.jti, "string");
    assert.ok(claims.jti.length > 0);
    firstJti = claims.jti;
  });

  await t.step(
    "--json: {token, key_id, subject, scopes, expires_at}; --subject, repeated --scope, --ttl, --audience",
    async () => {
      const data = jsonOk(
        await cli(
          [
            "keys",
            "sign",
            "--key",
            alice.path,
            "--subject",
            "ci-bot",
            "--scope",
            "run",
            "--scope",
            "read",
            "--ttl",
            "60",
            "--audience",
            "support-bot",
            "--json",
          ],
          home.path,
        ),
      );
      assert.deepEqual(Object.keys(data).sort(), [
        "expires_at",
        "key_id",
        "scopes",
        "subject",
        "token",
      ]);
      assert.equal(data.key_id, alice.key_id);
      assert.equal(data.subject, "ci-bot");
      assert.deepEqual(data.scopes, ["run", "read"]);
      const { header, claims } = await decodeToken(data.token, alice.public_key);
      assert.equal(header.kid, alice.key_id);
      assert.equal(claims.sub, "ci-bot");
      assert.equal(claims.scope, "run read");
      assert.equal(claims.exp - claims.iat, 60);
      assert.equal(claims.aud, "support-bot");
      assert.equal(data.expires_at, new Date(claims.exp * 1000).toISOString());
      assert.notEqual(claims.jti, firstJti, "jti is random");
    },
  );

  await t.step(
    'comma-separated --scope run,read gives "run read"; --ttl 604800 is allowed',
    async () => {
      const r = await cli(
        ["keys", "sign", "--key", alice.path, "--scope", "run,read", "--ttl", "604800"],
        home.path,
      );
      const { claims } = await decodeToken(humanOk(r).trim(), alice.public_key);
      assert.equal(claims.scope, "run read");
      assert.equal(claims.exp - claims.iat, 604800);
      assert.equal("aud" in claims, false);
    },
  );

  await t.step("--ttl 604801: exit 2, names the 7-day maximum", async () => {
    const err = jsonError(
      await cli(["keys", "sign", "--key", alice.path, "--ttl", "604801", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(err.message, /7-day/);
    const stderr = humanError(
      await cli(["keys", "sign", "--key", alice.path, "--ttl", "604801"], home.path),
      2,
    );
    assert.match(stderr, /7-day/);
  });

  await t.step("--ttl abc and an unknown scope: exit 2", async () => {
    const ttl = jsonError(
      await cli(["keys", "sign", "--key", alice.path, "--ttl", "abc", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(ttl.message, /--ttl/);
    const scope = jsonError(
      await cli(["keys", "sign", "--key", alice.path, "--scope", "admin", "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(scope.message, /admin/);
  });

  await t.step("a missing key file: exit 2", async () => {
    const missing = join(home.path, "keys", "nobody.pem");
    const err = jsonError(
      await cli(["keys", "sign", "--key", missing, "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(err.message, /key file/);
    humanError(await cli(["keys", "sign", "--key", missing], home.path), 2);
  });

  await t.step("a key made by `openssl genpkey -algorithm ed25519` works", async () => {
    await using dir = await tempDir();
    const path = join(dir.path, "ossl.pem");
    const gen = await new Deno.Command("openssl", {
      args: ["genpkey", "-algorithm", "ed25519", "-out", path],
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(gen.code, 0, new TextDecoder().decode(gen.stderr));
    const pub = await new Deno.Command("openssl", {
      args: ["pkey", "-in", path, "-pubout", "-outform", "DER"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(pub.code, 0, new TextDecoder().decode(pub.stderr));
    // An ed25519 SubjectPublicKeyInfo ends with the raw 32-byte key.
    const raw = pub.stdout.slice(-32);
    const publicKey = btoa(String.fromCharCode(...raw)).replace(/\+/g, "-").replace(/\//g, "_")
      .replace(/=+$/, "");
    const data = jsonOk(await cli(["keys", "sign", "--key", path, "--json"], home.path));
    assert.equal(data.key_id, await thumbprint(publicKey));
    assert.equal(data.subject, "ossl");
    const { header, claims } = await decodeToken(data.token, publicKey);
    assert.equal(header.kid, data.key_id);
    assert.equal(claims.scope, "*");
  });
});

Deno.test("framework keys authorize writes the contract's store, idempotent on key_id", async (t) => {
  await using home = await tempDir("fw-home-");
  const harness = await newHarness(home.path, join(home.path, "h"));
  const store = storeOf(harness);
  const alicePk = await freshPublicKey();
  const aliceId = await thumbprint(alicePk);
  let firstRow: Json;

  await t.step(
    "--json: {name, key_id, scopes, created}; the store has exactly the contract shape",
    async () => {
      const data = jsonOk(
        await cli(
          ["keys", "authorize", "alice", alicePk, "--harness", harness, "--scope", "run", "--json"],
          home.path,
        ),
      );
      assert.deepEqual(data, { name: "alice", key_id: aliceId, scopes: ["run"], created: true });
      const file = await readStore(store);
      assert.deepEqual(Object.keys(file).sort(), ["keys", "version"]);
      assert.equal(file.version, 1);
      assert.equal(file.keys.length, 1);
      firstRow = file.keys[0];
      assert.deepEqual(Object.keys(firstRow).sort(), ROW_FIELDS);
      assert.equal(firstRow.name, "alice");
      assert.equal(firstRow.public_key, alicePk);
      assert.equal(firstRow.key_id, aliceId);
      assert.deepEqual(firstRow.scopes, ["run"]);
      assertIso(firstRow.created_at, "created_at");
      assertIso(firstRow.updated_at, "updated_at");
      assert.equal(firstRow.revoked_at, null);
    },
  );

  const bobPk = await freshPublicKey();
  await t.step("human: names the key and its scopes (comma-separated --scope)", async () => {
    const out = humanOk(
      await cli(
        ["keys", "authorize", "bob", bobPk, "--harness", harness, "--scope", "run,read"],
        home.path,
      ),
    );
    assert.ok(out.includes(await thumbprint(bobPk)), out);
    assert.match(out, /bob/);
    assert.match(out, /run read/);
    const file = await readStore(store);
    assert.equal(file.keys.length, 2);
    assert.deepEqual(file.keys[1].scopes, ["run", "read"]);
  });

  await t.step(
    "the same key again: created false, scopes updated, one row, created_at kept",
    async () => {
      const data = jsonOk(
        await cli(
          [
            "keys",
            "authorize",
            "alice",
            alicePk,
            "--harness",
            harness,
            "--scope",
            "read",
            "--scope",
            "evolve",
            "--json",
          ],
          home.path,
        ),
      );
      assert.deepEqual(data, {
        name: "alice",
        key_id: aliceId,
        scopes: ["read", "evolve"],
        created: false,
      });
      const file = await readStore(store);
      const rows = file.keys.filter((k: Json) => k.key_id === aliceId);
      assert.equal(rows.length, 1);
      assert.equal(file.keys.length, 2);
      assert.deepEqual(rows[0].scopes, ["read", "evolve"]);
      assert.equal(rows[0].created_at, firstRow.created_at);
      assert.ok(Date.parse(rows[0].updated_at) >= Date.parse(firstRow.updated_at));
      assert.equal(rows[0].revoked_at, null);
    },
  );

  await t.step("without --scope: exit 2 and nothing written", async () => {
    const fresh = await newHarness(home.path, join(home.path, "fresh"));
    const err = jsonError(
      await cli(
        ["keys", "authorize", "carol", await freshPublicKey(), "--harness", fresh, "--json"],
        home.path,
      ),
      "bad_input",
      2,
    );
    assert.match(err.message, /--scope/);
    assert.equal(await exists(storeOf(fresh)), false);
    const before = await Deno.readFile(store);
    const stderr = humanError(
      await cli(
        ["keys", "authorize", "carol", await freshPublicKey(), "--harness", harness],
        home.path,
      ),
      2,
    );
    assert.match(stderr, /--scope/);
    assert.deepEqual(await Deno.readFile(store), before);
  });

  await t.step(
    "an unknown scope or a key that is not 32 bytes: exit 2, store unchanged",
    async () => {
      const before = await Deno.readFile(store);
      const scope = jsonError(
        await cli(
          [
            "keys",
            "authorize",
            "carol",
            await freshPublicKey(),
            "--harness",
            harness,
            "--scope",
            "run,admin",
            "--json",
          ],
          home.path,
        ),
        "bad_input",
        2,
      );
      assert.match(scope.message, /admin/);
      const short = jsonError(
        await cli(
          ["keys", "authorize", "carol", "abc", "--harness", harness, "--scope", "run", "--json"],
          home.path,
        ),
        "bad_input",
        2,
      );
      assert.match(short.message, /public key/i);
      // 44 base64url characters: 33 bytes.
      const stderr = humanError(
        await cli(
          ["keys", "authorize", "carol", "A".repeat(44), "--harness", harness, "--scope", "run"],
          home.path,
        ),
        2,
      );
      assert.match(stderr, /public key/i);
      assert.deepEqual(await Deno.readFile(store), before);
    },
  );

  await t.step(
    "a public key beginning with '-': works after --, a usage error without",
    async () => {
      // `-h…` would be the help flag (commander reads combined short flags); any other dash key is
      // an unknown option, a usage error.
      let pair = await newKeyPair();
      while (!pair.public_key.startsWith("-") || pair.public_key.startsWith("-h")) {
        pair = await newKeyPair();
      }
      const before = await Deno.readFile(store);
      const usage = jsonError(
        await cli(
          [
            "keys",
            "authorize",
            "dash",
            pair.public_key,
            "--harness",
            harness,
            "--scope",
            "run",
            "--json",
          ],
          home.path,
        ),
        "bad_input",
        2,
      );
      assert.match(usage.message, /usage/i);
      assert.deepEqual(await Deno.readFile(store), before);
      const data = jsonOk(
        await cli(
          [
            "keys",
            "authorize",
            "--harness",
            harness,
            "--scope",
            "run",
            "--json",
            "--",
            "dash",
            pair.public_key,
          ],
          home.path,
        ),
      );
      assert.deepEqual(data, { name: "dash", key_id: pair.key_id, scopes: ["run"], created: true });
      const row = (await readStore(store)).keys.find((k: Json) => k.key_id === pair.key_id);
      assert.equal(row.public_key, pair.public_key);
    },
  );

  await t.step("--help mentions --", async () => {
    const out = humanOk(await cli(["keys", "authorize", "--help"], home.path));
    assert.match(out, / -- /);
    assert.match(out, /begins with '-'/);
  });

  await t.step("--authorized-keys FILE chooses another store (no --harness needed)", async () => {
    await using dir = await tempDir();
    const file = join(dir.path, "keys.json");
    const pk = await freshPublicKey();
    const data = jsonOk(
      await cli(
        ["keys", "authorize", "eve", pk, "--authorized-keys", file, "--scope", "read", "--json"],
        home.path,
      ),
    );
    assert.equal(data.created, true);
    const written = await readStore(file);
    assert.equal(written.version, 1);
    assert.deepEqual(written.keys.map((k: Json) => k.public_key), [pk]);
    assert.equal(
      (await readStore(store)).keys.some((k: Json) => k.public_key === pk),
      false,
      "the harness store is untouched",
    );
    const list = jsonOk(
      await cli(["keys", "list", "--authorized-keys", file, "--json"], home.path),
    );
    assert.deepEqual(list.keys.map((k: Json) => k.name), ["eve"]);
  });

  await t.step("$FRAMEWORK_AUTHORIZED_KEYS chooses another store", async () => {
    await using dir = await tempDir();
    const file = join(dir.path, "env-keys.json");
    const pk = await freshPublicKey();
    const env = { FRAMEWORK_AUTHORIZED_KEYS: file };
    const data = jsonOk(
      await cli(["keys", "authorize", "env", pk, "--scope", "mutate", "--json"], home.path, env),
    );
    assert.equal(data.key_id, await thumbprint(pk));
    assert.deepEqual((await readStore(file)).keys.map((k: Json) => k.public_key), [pk]);
    const list = jsonOk(await cli(["keys", "list", "--json"], home.path, env));
    assert.deepEqual(list.keys.map((k: Json) => k.name), ["env"]);
  });
});

Deno.test("framework keys revoke marks a key revoked and keeps its row", async (t) => {
  await using home = await tempDir("fw-home-");
  const harness = await newHarness(home.path, join(home.path, "h"));
  const store = storeOf(harness);
  const alicePk = await freshPublicKey();
  const bobPk = await freshPublicKey();
  const aliceId = await thumbprint(alicePk);
  const bobId = await thumbprint(bobPk);
  for (const [name, pk] of [["alice", alicePk], ["bob", bobPk]] as const) {
    jsonOk(
      await cli(
        ["keys", "authorize", name, pk, "--harness", harness, "--scope", "run", "--json"],
        home.path,
      ),
    );
  }

  let revokedAt = "";
  await t.step("--json: {key_id, revoked_at}; the row is kept with revoked_at set", async () => {
    const before = await readStore(store);
    const data = jsonOk(
      await cli(["keys", "revoke", aliceId, "--harness", harness, "--json"], home.path),
    );
    assert.deepEqual(Object.keys(data).sort(), ["key_id", "revoked_at"]);
    assert.equal(data.key_id, aliceId);
    assertIso(data.revoked_at, "revoked_at");
    revokedAt = data.revoked_at;
    const after = await readStore(store);
    assert.equal(after.keys.length, 2);
    const row = after.keys.find((k: Json) => k.key_id === aliceId);
    assert.deepEqual(Object.keys(row).sort(), ROW_FIELDS);
    assert.equal(row.revoked_at, revokedAt);
    assert.equal(row.public_key, alicePk);
    assert.deepEqual(row.scopes, ["run"]);
    assert.equal(row.created_at, before.keys[0].created_at);
    assert.deepEqual(
      after.keys.find((k: Json) => k.key_id === bobId),
      before.keys.find((k: Json) => k.key_id === bobId),
      "the other row is untouched",
    );
  });

  await t.step("human: names the key id", async () => {
    const out = humanOk(await cli(["keys", "revoke", bobId, "--harness", harness], home.path));
    assert.ok(out.includes(bobId), out);
    assert.match(out, /Revoked/);
  });

  await t.step("revoking again keeps the first revocation time", async () => {
    const data = jsonOk(
      await cli(["keys", "revoke", aliceId, "--harness", harness, "--json"], home.path),
    );
    assert.equal(data.revoked_at, revokedAt);
  });

  await t.step("an unknown key id: exit 2, kind not_found, store unchanged", async () => {
    const before = await Deno.readFile(store);
    const unknown = await thumbprint(await freshPublicKey());
    const err = jsonError(
      await cli(["keys", "revoke", unknown, "--harness", harness, "--json"], home.path),
      "not_found",
      2,
    );
    assert.ok(err.message.includes(unknown), err.message);
    humanError(await cli(["keys", "revoke", "no-such-key", "--harness", harness], home.path), 2);
    assert.deepEqual(await Deno.readFile(store), before);
  });

  await t.step("re-authorizing a revoked key clears revoked_at", async () => {
    const data = jsonOk(
      await cli(
        ["keys", "authorize", "alice", alicePk, "--harness", harness, "--scope", "read", "--json"],
        home.path,
      ),
    );
    assert.equal(data.created, false);
    const file = await readStore(store);
    assert.equal(file.keys.length, 2);
    const row = file.keys.find((k: Json) => k.key_id === aliceId);
    assert.equal(row.revoked_at, null);
    assert.deepEqual(row.scopes, ["read"]);
  });
});

Deno.test("framework keys list shows every key, revoked ones marked", async (t) => {
  await using home = await tempDir("fw-home-");
  const harness = await newHarness(home.path, join(home.path, "h"));

  await t.step("an empty store says so", async () => {
    const out = humanOk(await cli(["keys", "list", "--harness", harness], home.path));
    assert.match(out, /No keys/i);
    assert.deepEqual(
      jsonOk(await cli(["keys", "list", "--harness", harness, "--json"], home.path)),
      { keys: [] },
    );
  });

  const alicePk = await freshPublicKey();
  const bobPk = await freshPublicKey();
  const aliceId = await thumbprint(alicePk);
  const bobId = await thumbprint(bobPk);
  jsonOk(
    await cli(
      ["keys", "authorize", "alice", alicePk, "--harness", harness, "--scope", "run", "--json"],
      home.path,
    ),
  );
  jsonOk(
    await cli(
      ["keys", "authorize", "bob", bobPk, "--harness", harness, "--scope", "read,mutate", "--json"],
      home.path,
    ),
  );
  const revoked = jsonOk(
    await cli(["keys", "revoke", bobId, "--harness", harness, "--json"], home.path),
  );

  await t.step("--json: {keys: [...]} with the revoked row included and marked", async () => {
    const data = jsonOk(await cli(["keys", "list", "--harness", harness, "--json"], home.path));
    assert.deepEqual(Object.keys(data), ["keys"]);
    assert.equal(data.keys.length, 2);
    const store = await readStore(storeOf(harness));
    for (const k of data.keys) {
      assert.deepEqual(Object.keys(k).sort(), LIST_FIELDS);
      const row = store.keys.find((r: Json) => r.key_id === k.key_id);
      assert.equal(k.created_at, row.created_at);
      assert.equal(k.public_key, row.public_key);
    }
    const alice = data.keys.find((k: Json) => k.key_id === aliceId);
    const bob = data.keys.find((k: Json) => k.key_id === bobId);
    assert.deepEqual(
      { ...alice, created_at: undefined },
      {
        name: "alice",
        key_id: aliceId,
        public_key: alicePk,
        scopes: ["run"],
        revoked: false,
        revoked_at: null,
        created_at: undefined,
      },
    );
    assert.equal(bob.name, "bob");
    assert.deepEqual(bob.scopes, ["read", "mutate"]);
    assert.equal(bob.revoked, true);
    assert.equal(bob.revoked_at, revoked.revoked_at);
  });

  await t.step("human: REVOKED rows marked", async () => {
    const out = humanOk(await cli(["keys", "list", "--harness", harness], home.path));
    const lines = out.trimEnd().split("\n");
    const aliceLine = lines.find((l) => l.includes(aliceId));
    const bobLine = lines.find((l) => l.includes(bobId));
    assert.ok(aliceLine && bobLine, out);
    assert.match(aliceLine, /alice/);
    assert.doesNotMatch(aliceLine, /REVOKED/);
    assert.match(bobLine, /bob/);
    assert.match(bobLine, /REVOKED/);
  });
});

Deno.test("framework keys refuses a corrupt store and leaves it byte-identical", async (t) => {
  await using home = await tempDir("fw-home-");
  const harness = await newHarness(home.path, join(home.path, "h"));
  const store = storeOf(harness);
  const pk = await freshPublicKey();
  const keyId = await thumbprint(pk);
  const now = new Date().toISOString();

  const cases: [string, string][] = [
    ["not JSON", '{"version": 1, "keys": [\n'],
    [
      "a row with an unknown scope",
      JSON.stringify({
        version: 1,
        keys: [{
          name: "alice",
          public_key: pk,
          key_id: keyId,
          scopes: ["run", "admin"],
          created_at: now,
          updated_at: now,
          revoked_at: null,
        }],
      }),
    ],
  ];
  for (const [what, content] of cases) {
    await t.step(`${what}: list, authorize and revoke exit 2 naming the store`, async () => {
      await Deno.mkdir(join(harness, ".framework"), { recursive: true });
      await Deno.writeTextFile(store, content);
      const before = await Deno.readFile(store);
      const verbs = [
        ["keys", "list", "--harness", harness],
        [
          "keys",
          "authorize",
          "bob",
          await freshPublicKey(),
          "--harness",
          harness,
          "--scope",
          "run",
        ],
        ["keys", "revoke", keyId, "--harness", harness],
      ];
      for (const args of verbs) {
        const err = jsonError(await cli([...args, "--json"], home.path), "bad_input", 2);
        assert.match(err.message, /corrupt/, `${args[1]}: ${err.message}`);
        assert.ok(err.message.includes(store), `${args[1]} names the store: ${err.message}`);
        assert.deepEqual(await Deno.readFile(store), before, `${args[1]} leaves the store alone`);
      }
      const stderr = humanError(await cli(verbs[0]!, home.path), 2);
      assert.match(stderr, /corrupt/);
      assert.ok(stderr.includes(store), stderr);
      assert.deepEqual(await Deno.readFile(store), before);
    });
  }
});

Deno.test("framework keys deploy-box verbs need an existing --harness", async (t) => {
  await using home = await tempDir("fw-home-");
  const pk = await freshPublicKey();
  const keyId = await thumbprint(pk);

  await t.step(
    "missing --harness (and no --authorized-keys): exit 2, says what is missing",
    async () => {
      const list = jsonError(await cli(["keys", "list", "--json"], home.path), "bad_input", 2);
      assert.match(list.message, /--harness/);
      const stderr = humanError(
        await cli(["keys", "authorize", "alice", pk, "--scope", "run"], home.path),
        2,
      );
      assert.match(stderr, /--harness/);
      const revoke = jsonError(
        await cli(["keys", "revoke", keyId, "--json"], home.path),
        "bad_input",
        2,
      );
      assert.match(revoke.message, /--harness/);
    },
  );

  await t.step("a --harness folder that does not exist: exit 2, nothing created", async () => {
    const missing = join(home.path, "no-such-harness");
    const list = jsonError(
      await cli(["keys", "list", "--harness", missing, "--json"], home.path),
      "bad_input",
      2,
    );
    assert.match(list.message, /not found/i);
    const authorize = jsonError(
      await cli(
        ["keys", "authorize", "alice", pk, "--harness", missing, "--scope", "run", "--json"],
        home.path,
      ),
      "bad_input",
      2,
    );
    assert.ok(authorize.message.includes("no-such-harness"), authorize.message);
    assert.equal(await exists(missing), false);
  });
});
