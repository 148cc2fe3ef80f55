import assert from "node:assert/strict";
import { generateKeyPair as joseKeyPair, SignJWT } from "jose";
import { FrameworkError } from "../../lib/errors.ts";
import { authenticate } from "../../lib/keys/authenticate.ts";
import { generateKey, readKeyFile } from "../../lib/keys/key_files.ts";
import { keyIdOf, toBase64Url } from "../../lib/keys/key_material.ts";
import { authorizeKey, listKeys, revokeKey } from "../../lib/keys/key_store.ts";
import { MAX_TTL_SECONDS, signToken } from "../../lib/keys/tokens.ts";
import { tempDir } from "../helpers/temp.ts";

const enc = new TextEncoder();
const b64json = (v: unknown) => toBase64Url(enc.encode(JSON.stringify(v)));
const now = () => Math.floor(Date.now() / 1000);

/** A member: a key file, its public key and id, authorized in a store with scopes. */
async function member(dir: string, name: string, store: string, scopes: string[] | null = ["*"]) {
  const key = await generateKey(name, `${dir}/keys`);
  if (scopes) await authorizeKey(store, name, key.public_key, scopes);
  return { ...key, signing: await readKeyFile(key.path) };
}

/** Signs any header and claims with an ed25519 private key (to forge tokens the CLI would refuse to mint). */
async function signRaw(
  privateKey: CryptoKey,
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
): Promise<string> {
  const input = `${b64json(header)}.${b64json(claims)}`;
  const sig = new Uint8Array(await crypto.subtle.sign("Ed25519", privateKey, enc.encode(input)));
  return `${input}.${toBase64Url(sig)}`;
}

function claims(extra: Record<string, unknown> = {}) {
  const t = now();
  return { sub: "tester", scope: "*", iat: t, exp: t + 600, jti: crypto.randomUUID(), ...extra };
}

function rejects401(why: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof FrameworkError, String(err));
    assert.equal(err.kind, "unauthorized", err.message);
    assert.match(err.message, why);
    return true;
  };
}

Deno.test("keyIdOf() gives the RFC 8037 appendix A thumbprint", async () => {
  assert.equal(
    await keyIdOf("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"),
    "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k",
  );
});

Deno.test("authenticate() accepts a token from `keys sign` and returns the principal", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/authorized_keys.json`;
  const alice = await member(tmp.path, "alice", store, ["run", "read"]);
  const { token, key_id, scopes, subject } = await signToken({
    keyPath: alice.path,
    scopes: ["run"],
  });
  assert.equal(key_id, alice.key_id);
  assert.deepEqual(scopes, ["run"]);
  assert.equal(subject, "alice");
  const who = await authenticate(
    new Request("http://x/run", { headers: { authorization: `Bearer ${token}` } }),
    store,
    "run",
  );
  assert.equal(who.key_id, alice.key_id);
  assert.equal(who.name, "alice");
  assert.equal(who.subject, "alice");
  assert.deepEqual(who.scopes, ["run"]);
  // The scheme is case-insensitive.
  assert.equal((await authenticate(`bearer ${token}`, store, "run")).key_id, alice.key_id);
  // A token without --scope carries "*" and is bounded by the key.
  const star = await signToken({ keyPath: alice.path });
  assert.deepEqual((await authenticate(`Bearer ${star.token}`, store, "read")).scopes, [
    "run",
    "read",
  ]);
});

Deno.test("authenticate() interoperates with openssl keys and openssl-signed tokens", async (t) => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/authorized_keys.json`;
  const pem = `${tmp.path}/openssl.pem`;
  const gen = await new Deno.Command("openssl", {
    args: ["genpkey", "-algorithm", "ed25519", "-out", pem],
  }).output();
  assert.ok(gen.success, new TextDecoder().decode(gen.stderr));
  const der = await new Deno.Command("openssl", {
    args: ["pkey", "-in", pem, "-pubout", "-outform", "DER"],
    stdout: "piped",
  }).output();
  const publicKey = toBase64Url(der.stdout.slice(-32));
  const { key_id } = await authorizeKey(store, "ops", publicKey, ["run"]);

  await t.step("`keys sign` with an openssl key", async () => {
    const { token } = await signToken({ keyPath: pem, scopes: ["run"] });
    assert.equal((await authenticate(`Bearer ${token}`, store, "run")).key_id, key_id);
  });

  await t.step("a token minted with openssl pkeyutl -sign -rawin and base64url alone", async () => {
    const t0 = now();
    const input = `${b64json({ alg: "EdDSA", typ: "JWT", kid: key_id })}.${
      b64json({ sub: "ci", scope: "run", iat: t0, exp: t0 + 300 })
    }`;
    await Deno.writeTextFile(`${tmp.path}/input.txt`, input);
    const sig = await new Deno.Command("openssl", {
      args: ["pkeyutl", "-sign", "-inkey", pem, "-rawin", "-in", `${tmp.path}/input.txt`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(sig.success, new TextDecoder().decode(sig.stderr));
    const token = `${input}.${toBase64Url(sig.stdout)}`;
    const who = await authenticate(`Bearer ${token}`, store, "run");
    assert.equal(who.subject, "ci");
    assert.equal(who.key_id, key_id);
  });
});

Deno.test("authenticate() refuses every attack with 401", async (t) => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/authorized_keys.json`;
  const alice = await member(tmp.path, "alice", store);
  const mallory = await member(tmp.path, "mallory", store, null);
  const bob = await member(tmp.path, "bob", store);
  const header = { alg: "EdDSA", typ: "JWT", kid: alice.key_id };
  const good = await signRaw(alice.signing.privateKey, header, claims());
  assert.ok(await authenticate(`Bearer ${good}`, store, "run"), "the baseline token is valid");
  const [gh, gp, gs] = good.split(".");

  const cases: [string, () => Promise<string> | string, RegExp][] = [
    [
      "alg: none",
      () => `${b64json({ alg: "none", typ: "JWT", kid: alice.key_id })}.${gp}.`,
      /Malformed|algorithm "none"/,
    ],
    [
      "alg: none with a signature",
      () => `${b64json({ alg: "none", kid: alice.key_id })}.${gp}.${gs}`,
      /algorithm "none"/,
    ],
    ["an embedded jwk of the attacker's key", async () => {
      const jwk = { kty: "OKP", crv: "Ed25519", x: mallory.public_key };
      return await signRaw(
        mallory.signing.privateKey,
        { alg: "EdDSA", jwk, kid: mallory.key_id },
        claims(),
      );
    }, /carries jwk/],
    ["an embedded jwk with alice's kid", async () => {
      const jwk = { kty: "OKP", crv: "Ed25519", x: mallory.public_key };
      return await signRaw(
        mallory.signing.privateKey,
        { alg: "EdDSA", jwk, kid: alice.key_id },
        claims(),
      );
    }, /carries jwk/],
    ["alg: HS256 keyed with the public key", async () => {
      const input = `${b64json({ alg: "HS256", typ: "JWT", kid: alice.key_id })}.${gp}`;
      const key = await crypto.subtle.importKey(
        "raw",
        enc.encode(alice.public_key),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      return `${input}.${
        toBase64Url(new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(input))))
      }`;
    }, /algorithm "HS256"/],
    ["alg: RS256", async () => {
      const { privateKey } = await joseKeyPair("RS256");
      return await new SignJWT(claims()).setProtectedHeader({ alg: "RS256", kid: alice.key_id })
        .sign(privateKey);
    }, /algorithm "RS256"/],
    [
      "a wrong kid",
      () => signRaw(alice.signing.privateKey, { ...header, kid: mallory.key_id }, claims()),
      /unknown kid/,
    ],
    [
      "a kid of another authorized key",
      () => signRaw(alice.signing.privateKey, { ...header, kid: bob.key_id }, claims()),
      /Invalid token signature/,
    ],
    [
      "a payload changed after signing",
      () => `${gh}.${b64json({ ...claims(), scope: "*", sub: "admin" })}.${gs}`,
      /Invalid token signature/,
    ],
    [
      "a signature cut short",
      () => {
        const sig = Uint8Array.fromBase64(gs!, { alphabet: "base64url" });
        return `${gh}.${gp}.${toBase64Url(sig.subarray(0, 63))}`;
      },
      /Invalid token signature/,
    ],
    [
      "a signature a byte longer",
      () => {
        const sig = Uint8Array.fromBase64(gs!, { alphabet: "base64url" });
        return `${gh}.${gp}.${toBase64Url(new Uint8Array([...sig, 0]))}`;
      },
      /Invalid token signature/,
    ],
    [
      // RFC 8032 §5.1.7: S must be below the group order L. S + L verifies under a lax check (the
      // same point), so it would let anyone make a second valid token from a seen one.
      "a malleated signature (S + L)",
      () => {
        const sig = Uint8Array.fromBase64(gs!, { alphabet: "base64url" });
        let s = 0n;
        for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(sig[i]!);
        s += 2n ** 252n + 27742317777372353535851937790883648493n;
        const out = new Uint8Array(sig);
        for (let i = 32; i < 64; i++) {
          out[i] = Number(s & 0xffn);
          s >>= 8n;
        }
        return `${gh}.${gp}.${toBase64Url(out)}`;
      },
      /Invalid token signature/,
    ],
    [
      "a header changed after signing",
      () => `${b64json({ ...header, typ: "JOSE" })}.${gp}.${gs}`,
      /Invalid token signature/,
    ],
    ["a signature of another message", async () => {
      const other = await signRaw(alice.signing.privateKey, header, claims({ sub: "other" }));
      return `${gh}.${gp}.${other.split(".")[2]}`;
    }, /Invalid token signature/],
    [
      "an expired token",
      () =>
        signRaw(alice.signing.privateKey, header, claims({ iat: now() - 1000, exp: now() - 10 })),
      /expired/,
    ],
    [
      "iat an hour ahead",
      () =>
        signRaw(alice.signing.privateKey, header, claims({ iat: now() + 3600, exp: now() + 4000 })),
      /future/,
    ],
    [
      "exp - iat over 604800",
      () =>
        signRaw(
          alice.signing.privateKey,
          header,
          claims({ iat: now(), exp: now() + MAX_TTL_SECONDS + 1 }),
        ),
      /7-day maximum/,
    ],
    ["no exp", async () => {
      const c: Record<string, unknown> = claims();
      delete c.exp;
      return await signRaw(alice.signing.privateKey, header, c);
    }, /exp and iat/],
    ["no iat", async () => {
      const c: Record<string, unknown> = claims();
      delete c.iat;
      return await signRaw(alice.signing.privateKey, header, c);
    }, /exp and iat/],
    [
      "a string exp",
      () => signRaw(alice.signing.privateKey, header, claims({ exp: String(now() + 100) })),
      /exp and iat/,
    ],
    [
      "a token signed by an unauthorized key",
      () =>
        signRaw(
          mallory.signing.privateKey,
          { alg: "EdDSA", typ: "JWT", kid: mallory.key_id },
          claims(),
        ),
      /unknown kid/,
    ],
    [
      "an unauthorized key without kid",
      () => signRaw(mallory.signing.privateKey, { alg: "EdDSA" }, claims()),
      /not signed by any authorized key/,
    ],
    [
      "a token bound to another harness",
      () => signRaw(alice.signing.privateKey, header, claims({ aud: "other-harness" })),
      /another harness/,
    ],
    [
      "an unknown crit header",
      () => signRaw(alice.signing.privateKey, { ...header, crit: ["exp"] }, claims()),
      /critical/,
    ],
    [
      "a jku header",
      () =>
        signRaw(
          alice.signing.privateKey,
          { ...header, jku: "https://evil.example/jwks" },
          claims(),
        ),
      /carries jku/,
    ],
    ["a garbage token", () => "not-a-token", /Malformed/],
    ["four parts", () => `${good}.x`, /Malformed/],
    [
      "a non-JSON header",
      () => `${toBase64Url(enc.encode("nope"))}.${gp}.${gs}`,
      /header is not base64url JSON/,
    ],
  ];
  for (const [label, make, why] of cases) {
    await t.step(label, async () => {
      await assert.rejects(
        authenticate(`Bearer ${await make()}`, store, "run", { audience: "my-harness" }),
        rejects401(why),
      );
    });
  }
  await t.step("an empty, missing or non-Bearer Authorization header", async () => {
    for (
      const h of [
        null,
        "",
        "   ",
        `Basic ${btoa("a:b")}`,
        good,
        `Bearer`,
        `Bearer  `,
        `Token ${good}`,
        `Bearer ${good} extra`,
      ]
    ) {
      await assert.rejects(
        authenticate(h, store, "run"),
        rejects401(/Missing bearer token|must be `Bearer <token>`/),
        String(h),
      );
    }
  });
  await t.step("no message ever echoes the token", async () => {
    for (const [, make] of cases) {
      const token = await make();
      try {
        await authenticate(`Bearer ${token}`, store, "run");
      } catch (err) {
        const e = err as FrameworkError;
        for (const part of token.split(".").filter((p) => p.length > 8)) {
          assert.ok(!e.message.includes(part) && !JSON.stringify(e.details).includes(part));
        }
      }
    }
  });
  await t.step("a token bound to this harness is accepted by it", async () => {
    const bound = await signRaw(alice.signing.privateKey, header, claims({ aud: "my-harness" }));
    assert.ok(await authenticate(`Bearer ${bound}`, store, "run", { audience: "my-harness" }));
    await assert.rejects(
      authenticate(`Bearer ${bound}`, store, "run"),
      rejects401(/another harness/),
    );
  });
  await t.step("alg: Ed25519 (RFC 9864) from a correct key is accepted", async () => {
    const ed = await signRaw(alice.signing.privateKey, {
      alg: "Ed25519",
      typ: "JWT",
      kid: alice.key_id,
    }, claims());
    assert.equal((await authenticate(`Bearer ${ed}`, store, "run")).key_id, alice.key_id);
  });
  await t.step("a token without kid is tried against every active key", async () => {
    const nokid = await signRaw(alice.signing.privateKey, { alg: "EdDSA", typ: "JWT" }, claims());
    assert.equal((await authenticate(`Bearer ${nokid}`, store, "run")).key_id, alice.key_id);
  });
});

Deno.test("authenticate() refuses a revoked key on the very next call", async () => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/authorized_keys.json`;
  const alice = await member(tmp.path, "alice", store, ["run"]);
  const { token } = await signToken({ keyPath: alice.path, scopes: ["run"] });
  assert.ok(await authenticate(`Bearer ${token}`, store, "run"));
  await revokeKey(store, alice.key_id);
  await assert.rejects(authenticate(`Bearer ${token}`, store, "run"), rejects401(/revoked/));
  const nokid = await signRaw(alice.signing.privateKey, { alg: "EdDSA" }, claims());
  await assert.rejects(
    authenticate(`Bearer ${nokid}`, store, "run"),
    rejects401(/not signed by any authorized key/),
  );
  // Re-authorizing the same key clears the revocation.
  await authorizeKey(store, "alice", alice.public_key, ["run"]);
  assert.ok(await authenticate(`Bearer ${token}`, store, "run"));
  const rows = await listKeys(store);
  assert.equal(rows.length, 1, "rows are never duplicated or deleted");
});

Deno.test("authenticate() needs both the key's and the token's scopes", async (t) => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/authorized_keys.json`;
  const reader = await member(tmp.path, "reader", store, ["read"]);
  const admin = await member(tmp.path, "admin", store, ["*"]);
  const forbidden = (err: unknown) =>
    err instanceof FrameworkError && err.kind === "forbidden" &&
    /needs scope "run"/.test(err.message);
  await t.step("a read key with a * token cannot run", async () => {
    const { token } = await signToken({ keyPath: reader.path, scopes: ["*"] });
    await assert.rejects(authenticate(`Bearer ${token}`, store, "run"), forbidden);
    assert.deepEqual((await authenticate(`Bearer ${token}`, store, "read")).scopes, ["read"]);
  });
  await t.step("a * key with a read token cannot run", async () => {
    const { token } = await signToken({ keyPath: admin.path, scopes: ["read"] });
    await assert.rejects(authenticate(`Bearer ${token}`, store, "run"), forbidden);
  });
  await t.step("a * key with a * token can do anything", async () => {
    const { token } = await signToken({ keyPath: admin.path, scopes: ["*"] });
    for (const s of ["run", "read", "mutate", "evolve"]) {
      assert.ok(await authenticate(`Bearer ${token}`, store, s));
    }
    assert.deepEqual((await authenticate(`Bearer ${token}`, store, "run")).scopes, ["*"]);
  });
  await t.step("a token without a scope claim can do nothing scoped", async () => {
    const bare = await signRaw(admin.signing.privateKey, { alg: "EdDSA", kid: admin.key_id }, {
      iat: now(),
      exp: now() + 60,
    });
    await assert.rejects(
      authenticate(`Bearer ${bare}`, store, "read"),
      (e) => e instanceof FrameworkError && e.kind === "forbidden",
    );
    assert.ok(
      await authenticate(`Bearer ${bare}`, store, null),
      "a valid token without scopes still authenticates",
    );
  });
});

Deno.test("revoking a key in one harness's store leaves it authorized in another", async () => {
  await using tmp = await tempDir();
  const storeA = `${tmp.path}/a/authorized_keys.json`;
  const storeB = `${tmp.path}/b/authorized_keys.json`;
  const alice = await member(tmp.path, "alice", storeA, ["run"]);
  await authorizeKey(storeB, "alice", alice.public_key, ["run"]);
  const { token } = await signToken({ keyPath: alice.path, scopes: ["run"] });
  await revokeKey(storeA, alice.key_id);
  await assert.rejects(authenticate(`Bearer ${token}`, storeA, "run"), rejects401(/revoked/));
  assert.equal((await authenticate(`Bearer ${token}`, storeB, "run")).key_id, alice.key_id);
});

Deno.test("authenticate() fails closed on a corrupt key store (500, never replaced)", async (t) => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/authorized_keys.json`;
  const alice = await member(tmp.path, "alice", store, ["run"]);
  const { token } = await signToken({ keyPath: alice.path, scopes: ["run"] });
  const original = await Deno.readTextFile(store);
  const corruptions = [
    "{not json",
    "[]",
    JSON.stringify({ version: 2, keys: [] }),
    original.replace('"run"', '"root"'),
    original.replace(alice.public_key, "short"),
    "",
  ];
  for (const bad of corruptions) {
    await t.step(JSON.stringify(bad.slice(0, 30)), async () => {
      await Deno.writeTextFile(store, bad);
      await assert.rejects(authenticate(`Bearer ${token}`, store, "run"), (err) => {
        assert.ok(err instanceof FrameworkError);
        assert.equal(err.kind, "internal");
        assert.ok(!err.message.includes(store), "a 500 never names a path");
        return true;
      });
      await assert.rejects(authorizeKey(store, "x", alice.public_key, ["run"]), /corrupt/);
      assert.equal(await Deno.readTextFile(store), bad, "the store is never replaced");
    });
  }
});

Deno.test("generateKey() refuses to overwrite and writes mode 0600 in a 0700 folder", async () => {
  await using tmp = await tempDir();
  const first = await generateKey("alice", `${tmp.path}/keys`);
  const bytes = await Deno.readFile(first.path);
  assert.equal((await Deno.stat(first.path)).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(`${tmp.path}/keys`)).mode! & 0o777, 0o700);
  await assert.rejects(
    generateKey("alice", `${tmp.path}/keys`),
    (e) => e instanceof FrameworkError && e.kind === "bad_input",
  );
  assert.deepEqual(await Deno.readFile(first.path), bytes, "the first file is intact");
  assert.match(new TextDecoder().decode(bytes), /^-----BEGIN PRIVATE KEY-----\n/);
  for (const bad of ["../x", "a/b", "", ".hidden"]) {
    await assert.rejects(
      generateKey(bad, `${tmp.path}/keys`),
      (e) => e instanceof FrameworkError && e.kind === "bad_input",
    );
  }
});

Deno.test("signToken() refuses a ttl over the maximum, bad scopes and non-ed25519 keys", async () => {
  await using tmp = await tempDir();
  const key = await generateKey("a", tmp.path);
  const bad = (re: RegExp) => (e: unknown) =>
    e instanceof FrameworkError && e.kind === "bad_input" && re.test(e.message);
  await assert.rejects(
    signToken({ keyPath: key.path, ttl: MAX_TTL_SECONDS + 1 }),
    bad(/7-day maximum/),
  );
  await assert.rejects(signToken({ keyPath: key.path, ttl: 0 }), bad(/whole number/));
  await assert.rejects(
    signToken({ keyPath: key.path, scopes: ["admin"] }),
    bad(/Unknown scope "admin"/),
  );
  await assert.rejects(signToken({ keyPath: `${tmp.path}/missing.pem` }), bad(/No key file/));
  const rsa = `${tmp.path}/rsa.pem`;
  await new Deno.Command("openssl", {
    args: ["genpkey", "-algorithm", "rsa", "-pkeyopt", "rsa_keygen_bits:2048", "-out", rsa],
  }).output();
  await assert.rejects(signToken({ keyPath: rsa }), bad(/not an ed25519 private key/));
  const max = await signToken({
    keyPath: key.path,
    ttl: MAX_TTL_SECONDS,
    scopes: ["run,read"],
    audience: "h",
  });
  assert.deepEqual(max.scopes, ["run", "read"]);
});

Deno.test("authenticate(): a token checked once is checked again against what the store holds now", async (t) => {
  await using tmp = await tempDir();
  const store = `${tmp.path}/authorized_keys.json`;
  const alice = await member(tmp.path, "alice", store, ["run"]);
  const bob = await member(tmp.path, "bob", `${tmp.path}/other.json`, ["run"]);
  const { token } = await signToken({ keyPath: alice.path, scopes: ["run"] });
  // Accepted twice: the second time its signature is the one remembered.
  assert.equal((await authenticate(`Bearer ${token}`, store, "run")).key_id, alice.key_id);
  assert.equal((await authenticate(`Bearer ${token}`, store, "run")).key_id, alice.key_id);

  await t.step(
    "another signature over the same header and claims is checked, and refused",
    async () => {
      const [header, payload, signature] = token.split(".");
      const flipped = signature!.slice(0, -2) + (signature!.endsWith("AA") ? "BA" : "AA");
      await assert.rejects(
        authenticate(`Bearer ${header}.${payload}.${flipped}`, store, "run"),
        rejects401(/Invalid token signature/),
      );
    },
  );

  await t.step("its times are read again: past its exp it is refused", async () => {
    const exp = JSON.parse(new TextDecoder().decode(
      Uint8Array.fromBase64(token.split(".")[1]!, { alphabet: "base64url" }),
    )).exp;
    await assert.rejects(
      authenticate(`Bearer ${token}`, store, "run", { now: exp + 1 }),
      rejects401(/expired/),
    );
  });

  await t.step("its scope is read again", async () => {
    await assert.rejects(authenticate(`Bearer ${token}`, store, "read"), (e: unknown) => {
      assert.ok(e instanceof FrameworkError && e.kind === "forbidden");
      return true;
    });
  });

  await t.step(
    "the key id now naming another public key: the signature no longer holds",
    async () => {
      const doc = JSON.parse(await Deno.readTextFile(store));
      doc.keys[0].public_key = bob.public_key;
      await Deno.writeTextFile(store, JSON.stringify(doc));
      await assert.rejects(
        authenticate(`Bearer ${token}`, store, "run"),
        rejects401(/Invalid token signature/),
      );
      doc.keys[0].public_key = alice.public_key;
      await Deno.writeTextFile(store, JSON.stringify(doc));
      assert.ok(await authenticate(`Bearer ${token}`, store, "run"));
    },
  );

  await t.step("revoked, it is refused on the next call", async () => {
    await revokeKey(store, alice.key_id);
    await assert.rejects(authenticate(`Bearer ${token}`, store, "run"), rejects401(/revoked/));
  });
});
