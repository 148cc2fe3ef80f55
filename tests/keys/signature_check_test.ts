import assert from "node:assert/strict";
import { toBase64Url } from "../../lib/keys/key_material.ts";
import {
  ed25519Check,
  ed25519HoldsInline,
  ed25519HoldsPooled,
} from "../../lib/keys/signature_check.ts";

const hex = (h: string) => Uint8Array.fromHex(h);

/** RFC 8032 §7.1, TEST 2: one-byte message 0x72. */
const RFC = {
  publicKey: toBase64Url(hex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")),
  message: hex("72"),
  signature: hex(
    "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da" +
      "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
  ),
};

/** The group order L of edwards25519. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** The same signature with S replaced by S + L (RFC 8032 §5.1.7 requires S < L). */
function malleated(signature: Uint8Array): Uint8Array {
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i]!);
  s += L;
  const out = new Uint8Array(signature);
  for (let i = 32; i < 64; i++) {
    out[i] = Number(s & 0xffn);
    s >>= 8n;
  }
  return out;
}

function flipped(bytes: Uint8Array, at: number): Uint8Array {
  const out = new Uint8Array(bytes);
  out[at]! ^= 1;
  return out;
}

const WAYS = [
  ["inline", ed25519HoldsInline],
  ["pooled", ed25519HoldsPooled],
] as const;

Deno.test("both ways of checking an Ed25519 signature give the same verdicts", async (t) => {
  const pair = await crypto.subtle.generateKey("Ed25519", true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const publicKey = toBase64Url(
    new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey)),
  );
  const data = new TextEncoder().encode("eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhbGljZSJ9");
  const signature = new Uint8Array(await crypto.subtle.sign("Ed25519", pair.privateKey, data));
  const other = toBase64Url(
    new Uint8Array(
      await crypto.subtle.exportKey(
        "raw",
        (await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"]) as CryptoKeyPair)
          .publicKey,
      ),
    ),
  );
  const cases: [string, string, Uint8Array, Uint8Array, boolean][] = [
    ["the RFC 8032 test vector", RFC.publicKey, RFC.signature, RFC.message, true],
    ["a fresh signature", publicKey, signature, data, true],
    ["a bit flipped in R", publicKey, flipped(signature, 3), data, false],
    ["a bit flipped in S", publicKey, flipped(signature, 40), data, false],
    ["a bit flipped in the message", publicKey, signature, flipped(data, 5), false],
    ["S + L (malleated)", publicKey, malleated(signature), data, false],
    ["the vector's S + L", RFC.publicKey, malleated(RFC.signature), RFC.message, false],
    [
      "S = 2^256 - 1",
      RFC.publicKey,
      new Uint8Array([...RFC.signature.slice(0, 32), ...new Uint8Array(32).fill(0xff)]),
      RFC.message,
      false,
    ],
    ["another key", other, signature, data, false],
    ["a 63-byte signature", publicKey, signature.slice(0, 63), data, false],
    ["a 65-byte signature", publicKey, new Uint8Array([...signature, 0]), data, false],
    ["a key that is not base64url", "!".repeat(43), signature, data, false],
    ["a key of 31 bytes", toBase64Url(new Uint8Array(31)), signature, data, false],
  ];
  for (const [way, holds] of WAYS) {
    await t.step(way, async () => {
      for (const [name, key, sig, bytes, expected] of cases) {
        assert.equal(await holds(key, sig, bytes), expected, `${way}: ${name}`);
      }
    });
  }
});

Deno.test("ed25519Check runs inline while checks do not overlap and on the pool while they do", async () => {
  const { publicKey, message, signature } = RFC;
  // Sequential checks: inline, except the periodic probe that goes to the pool.
  await new Promise((resolve) => setTimeout(resolve, 10));
  let pooled = 0;
  for (let i = 0; i < 128; i++) {
    const verdict = ed25519Check(publicKey, signature, message);
    if (verdict instanceof Promise) pooled++;
    assert.equal(await verdict, true);
  }
  assert.ok(pooled >= 3 && pooled <= 5, `${pooled} of 128 sequential checks went to the pool`);

  // Overlapping checks: once one is on the pool, every check started meanwhile joins it.
  let first: boolean | Promise<boolean> = true;
  for (let i = 0; i < 64 && !(first instanceof Promise); i++) {
    first = ed25519Check(publicKey, signature, message);
  }
  assert.ok(first instanceof Promise, "a probe reached the pool");
  const overlapping = Array.from({ length: 8 }, () => ed25519Check(publicKey, signature, message));
  assert.ok(overlapping.every((v) => v instanceof Promise));
  assert.deepEqual(await Promise.all([first, ...overlapping]), Array(9).fill(true));

  // Once the overlap has passed, checks are inline again (but for the periodic probe).
  await new Promise((resolve) => setTimeout(resolve, 10));
  pooled = 0;
  for (let i = 0; i < 64; i++) {
    const verdict = ed25519Check(publicKey, signature, message);
    if (verdict instanceof Promise) pooled++;
    assert.equal(await verdict, true);
  }
  assert.ok(pooled <= 2, `${pooled} of 64 sequential checks went to the pool`);
});
