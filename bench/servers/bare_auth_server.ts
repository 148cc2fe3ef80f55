/**
 * A bare `Deno.serve` doing only the work the specification requires of an authenticated request:
 * read the key store from disk, pick the token's key, verify its EdDSA signature over the signing
 * input (node:crypto's Ed25519, as the framework does), then answer fixed bytes. The floor the
 * control plane's `/stats` is compared against.
 * Usage: bare_auth_server.ts <body-file> <authorized-keys-file>
 */
import { createPublicKey, type KeyObject, verify } from "node:crypto";

const body = await Deno.readFile(Deno.args[0]!);
const storePath = Deno.args[1]!;
const keys = new Map<string, KeyObject>();
const headers = { "content-type": "application/json; charset=utf-8" };
const ascii = new TextEncoder();
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(port),
}, async (request) => {
  const token = (request.headers.get("authorization") ?? "").slice("Bearer ".length);
  const store = JSON.parse(await Deno.readTextFile(storePath)) as {
    keys: { key_id: string; public_key: string }[];
  };
  const [header, payload, signature] = token.split(".");
  const kid = JSON.parse(atob(header!.replace(/-/g, "+").replace(/_/g, "/"))).kid;
  const row = store.keys.find((k) => k.key_id === kid);
  if (!row) return new Response("unknown key", { status: 401 });
  let key = keys.get(row.public_key);
  if (!key) {
    key = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: row.public_key },
      format: "jwk",
    });
    keys.set(row.public_key, key);
  }
  const sig = Uint8Array.fromBase64(signature!, { alphabet: "base64url" });
  if (!verify(null, ascii.encode(`${header}.${payload}`), key, sig)) {
    return new Response("bad signature", { status: 401 });
  }
  return new Response(body, { headers });
});
