/**
 * `authenticate` calls per second with a store of 100 keys read fresh on every call, beside a bare
 * ed25519 verification of the same token (the floor).
 *
 * @module
 */

import { authenticate } from "../lib/keys/authenticate.ts";
import { generateKey } from "../lib/keys/key_files.ts";
import { createPublicKey, verify } from "node:crypto";
import { fromBase64Url, newKeyPair } from "../lib/keys/key_material.ts";
import { authorizeKey } from "../lib/keys/key_store.ts";
import { signToken } from "../lib/keys/tokens.ts";
import { fmt, measure, report } from "./measure.ts";
import { benchTempDir } from "./temp_dirs.ts";

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const dir = await benchTempDir("fw-bench-auth-");
  const store = `${dir}/authorized_keys.json`;
  for (let i = 0; i < 99; i++) {
    const pair = await newKeyPair();
    await authorizeKey(store, `member-${i}`, pair.public_key, ["run", "read"]);
    if (i === 49) {
      const key = await generateKey("bench", dir);
      await authorizeKey(store, "bench", key.public_key, ["run", "read"]);
    }
  }
  const { token } = await signToken({ keyPath: `${dir}/bench.pem`, scopes: ["run"] });
  const header = `Bearer ${token}`;
  const auth = await measure(2000, () => authenticate(header, store, "run"), 50);
  const [h, p, s] = token.split(".");
  const pub =
    JSON.parse(await Deno.readTextFile(store)).keys.find((k: { name: string }) =>
      k.name === "bench"
    ).public_key;
  const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: pub }, format: "jwk" });
  const data = new TextEncoder().encode(`${h}.${p}`);
  const sig = new Uint8Array(fromBase64Url(s!)!);
  const bare = await measure(2000, () => {
    if (!verify(null, data, key, sig)) {
      throw new Error("bad signature");
    }
  }, 50);
  report("authenticate (100-key store read fresh, with kid)", {
    calls_per_s: fmt(auth.per_second),
    p50: fmt(auth.p50_ms, " ms"),
    p99: fmt(auth.p99_ms, " ms"),
  });
  report("bare ed25519 verify of the same token", {
    calls_per_s: fmt(bare.per_second),
    p50: fmt(bare.p50_ms, " ms"),
  });
  report("ratio", {
    authenticate_vs_bare: `${fmt(bare.per_second / auth.per_second, "x")} slower`,
  });
}
