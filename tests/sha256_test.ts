import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createSha256 } from "../lib/sha256.ts";

const reference = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const ascii = (text: string) => new TextEncoder().encode(text);

Deno.test("sha256: the FIPS 180-4 examples", () => {
  const sha = createSha256();
  assert.equal(
    sha.update(ascii("abc")).hex(),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    sha.update(new Uint8Array(0)).hex(),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    sha.update(ascii("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).hex(),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("sha256: every length across the padding boundaries, whole and in pieces, as node:crypto", () => {
  const sha = createSha256();
  const data = crypto.getRandomValues(new Uint8Array(300));
  for (let n = 0; n <= 300; n++) {
    const message = data.subarray(0, n);
    const want = reference(message);
    assert.equal(sha.update(message).hex(), want, `length ${n}`);
    for (const cut of [1, 55, 56, 63, 64, 65, n >> 1]) {
      if (cut > n) continue;
      // By subarray and by range: the state carries the partial block from one update to the next.
      assert.equal(sha.update(message.subarray(0, cut)).update(message.subarray(cut)).hex(), want);
      assert.equal(sha.update(data, 0, cut).update(data, cut, n).hex(), want);
    }
  }
});

Deno.test("sha256: a long message and many small pieces", () => {
  const sha = createSha256();
  const big = new Uint8Array(1 << 20).map((_, i) => (i * 2654435761) >>> 24);
  assert.equal(sha.update(big).hex(), reference(big));
  for (let i = 0; i < big.length; i += 7) sha.update(big, i, Math.min(i + 7, big.length));
  assert.equal(sha.hex(), reference(big));
});

Deno.test("sha256: hexIs compares the hash with hex digits in place and starts over", () => {
  const sha = createSha256();
  const message = ascii("journal line");
  const digits = ascii(`{"hash":"${reference(message)}"}`);
  assert(sha.update(message).hexIs(digits, 9));
  assert(!sha.update(message).hexIs(digits, 8), "off by one");
  assert(!sha.update(message).hexIs(digits, digits.length - 10), "runs past the end");
  assert(!sha.update(ascii("journal linE")).hexIs(digits, 9), "another message");
  const upper = ascii(reference(message).toUpperCase());
  assert(!sha.update(message).hexIs(upper, 0), "hex digits are lowercase");
  // A finished state starts over: the next message is hashed alone.
  assert.equal(sha.update(message).hex(), reference(message));
});

Deno.test("sha256: a range outside the bytes is refused, not hashed as zeros", () => {
  const sha = createSha256();
  for (const [start, end] of [[0, 8], [-1, 2], [3, 2]]) {
    assert.throws(() => sha.update(new Uint8Array(4), start, end), RangeError);
  }
  // The refused update left nothing behind.
  assert.equal(sha.update(ascii("abc")).hex(), reference(ascii("abc")));
});
