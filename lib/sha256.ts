/**
 * SHA-256 (FIPS 180-4) in plain JavaScript, with one reusable state: hashing a message allocates
 * nothing that outlives the call. The journal verifier hashes every line of a file with it, so its
 * memory stays bounded by one line; node:crypto's `createHash` makes one native object per line,
 * which is freed only by a full collection, and a long journal's verification grew by tens of MB.
 * Hashes that are made one at a time (the writer's) keep using node:crypto. `@noble/hashes` keeps the
 * memory as flat but made verification a quarter slower (docs/decisions.md;
 * bench/journal_sha256_bench.ts).
 *
 * @module
 */

const K = new Int32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);
const INITIAL = new Int32Array([
  0x6a09e667,
  0xbb67ae85,
  0x3c6ef372,
  0xa54ff53a,
  0x510e527f,
  0x9b05688c,
  0x1f83d9ab,
  0x5be0cd19,
]);
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
const HEX_DIGITS = new TextEncoder().encode("0123456789abcdef");

/** A reusable SHA-256 state: `update` any number of times, then `hex` (which also resets it). */
export interface Sha256 {
  /** Adds bytes to the message (those in [start, end) when given: no subarray to make). */
  update(bytes: Uint8Array, start?: number, end?: number): Sha256;
  /** Finishes the message: its hash as 64 lowercase hex characters. The state starts over. */
  hex(): string;
  /**
   * Finishes the message and tells whether its hash, as lowercase hex, is the 64 bytes at `at`:
   * `hex()` compared without making a string. The state starts over.
   */
  hexIs(bytes: Uint8Array, at: number): boolean;
}

/**
 * Creates a reusable SHA-256 state.
 *
 * @example
 * ```ts
 * const sha = createSha256();
 * const abc = new TextEncoder().encode("abc");
 * sha.update(abc, 0, 1).update(abc, 1).hex().slice(0, 8); // "ba7816bf"
 * ```
 * @returns The state.
 */
export function createSha256(): Sha256 {
  const h = new Int32Array(INITIAL);
  const w = new Int32Array(64);
  const block = new Uint8Array(64);
  let used = 0; // bytes waiting in `block`
  let length = 0; // message length so far, in bytes

  const compress = (m: Uint8Array, at: number): void => {
    for (let i = 0; i < 16; i++, at += 4) {
      w[i] = (m[at]! << 24) | (m[at + 1]! << 16) | (m[at + 2]! << 8) | m[at + 3]!;
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]!;
      const y = w[i - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
    }
    // Eight rounds per pass, the working variables renamed instead of shifted (a quarter faster).
    let a = h[0]!, b = h[1]!, c = h[2]!, d = h[3]!, e = h[4]!, f = h[5]!, g = h[6]!, k = h[7]!;
    for (let i = 0; i < 64; i += 8) {
      k = (k + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) +
        (g ^ (e & (f ^ g))) + K[i + 0]! + w[i + 0]!) | 0;
      d = (d + k) | 0;
      k = (k + (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) +
        ((a & b) ^ (c & (a ^ b)))) | 0;
      g = (g + (((d >>> 6) | (d << 26)) ^ ((d >>> 11) | (d << 21)) ^ ((d >>> 25) | (d << 7))) +
        (f ^ (d & (e ^ f))) + K[i + 1]! + w[i + 1]!) | 0;
      c = (c + g) | 0;
      g = (g + (((k >>> 2) | (k << 30)) ^ ((k >>> 13) | (k << 19)) ^ ((k >>> 22) | (k << 10))) +
        ((k & a) ^ (b & (k ^ a)))) | 0;
      f = (f + (((c >>> 6) | (c << 26)) ^ ((c >>> 11) | (c << 21)) ^ ((c >>> 25) | (c << 7))) +
        (e ^ (c & (d ^ e))) + K[i + 2]! + w[i + 2]!) | 0;
      b = (b + f) | 0;
      f = (f + (((g >>> 2) | (g << 30)) ^ ((g >>> 13) | (g << 19)) ^ ((g >>> 22) | (g << 10))) +
        ((g & k) ^ (a & (g ^ k)))) | 0;
      e = (e + (((b >>> 6) | (b << 26)) ^ ((b >>> 11) | (b << 21)) ^ ((b >>> 25) | (b << 7))) +
        (d ^ (b & (c ^ d))) + K[i + 3]! + w[i + 3]!) | 0;
      a = (a + e) | 0;
      e = (e + (((f >>> 2) | (f << 30)) ^ ((f >>> 13) | (f << 19)) ^ ((f >>> 22) | (f << 10))) +
        ((f & g) ^ (k & (f ^ g)))) | 0;
      d = (d + (((a >>> 6) | (a << 26)) ^ ((a >>> 11) | (a << 21)) ^ ((a >>> 25) | (a << 7))) +
        (c ^ (a & (b ^ c))) + K[i + 4]! + w[i + 4]!) | 0;
      k = (k + d) | 0;
      d = (d + (((e >>> 2) | (e << 30)) ^ ((e >>> 13) | (e << 19)) ^ ((e >>> 22) | (e << 10))) +
        ((e & f) ^ (g & (e ^ f)))) | 0;
      c = (c + (((k >>> 6) | (k << 26)) ^ ((k >>> 11) | (k << 21)) ^ ((k >>> 25) | (k << 7))) +
        (b ^ (k & (a ^ b))) + K[i + 5]! + w[i + 5]!) | 0;
      g = (g + c) | 0;
      c = (c + (((d >>> 2) | (d << 30)) ^ ((d >>> 13) | (d << 19)) ^ ((d >>> 22) | (d << 10))) +
        ((d & e) ^ (f & (d ^ e)))) | 0;
      b = (b + (((g >>> 6) | (g << 26)) ^ ((g >>> 11) | (g << 21)) ^ ((g >>> 25) | (g << 7))) +
        (a ^ (g & (k ^ a))) + K[i + 6]! + w[i + 6]!) | 0;
      f = (f + b) | 0;
      b = (b + (((c >>> 2) | (c << 30)) ^ ((c >>> 13) | (c << 19)) ^ ((c >>> 22) | (c << 10))) +
        ((c & d) ^ (e & (c ^ d)))) | 0;
      a = (a + (((f >>> 6) | (f << 26)) ^ ((f >>> 11) | (f << 21)) ^ ((f >>> 25) | (f << 7))) +
        (k ^ (f & (g ^ k))) + K[i + 7]! + w[i + 7]!) | 0;
      e = (e + a) | 0;
      a = (a + (((b >>> 2) | (b << 30)) ^ ((b >>> 13) | (b << 19)) ^ ((b >>> 22) | (b << 10))) +
        ((b & c) ^ (d & (b ^ c)))) | 0;
    }
    h[0] = (h[0]! + a) | 0;
    h[1] = (h[1]! + b) | 0;
    h[2] = (h[2]! + c) | 0;
    h[3] = (h[3]! + d) | 0;
    h[4] = (h[4]! + e) | 0;
    h[5] = (h[5]! + f) | 0;
    h[6] = (h[6]! + g) | 0;
    h[7] = (h[7]! + k) | 0;
  };

  /** Pads the message and compresses its last block(s): `h` then holds the hash. */
  const finish = (): void => {
    const bits = length * 8;
    block[used++] = 0x80;
    if (used > 56) {
      block.fill(0, used);
      compress(block, 0);
      used = 0;
    }
    block.fill(0, used, 56);
    const high = Math.floor(bits / 0x100000000);
    const low = bits >>> 0;
    block[56] = high >>> 24;
    block[57] = high >>> 16;
    block[58] = high >>> 8;
    block[59] = high;
    block[60] = low >>> 24;
    block[61] = low >>> 16;
    block[62] = low >>> 8;
    block[63] = low;
    compress(block, 0);
  };
  const restart = (): void => {
    h.set(INITIAL);
    used = 0;
    length = 0;
  };

  const sha: Sha256 = {
    update(bytes, start = 0, end = bytes.length) {
      if (start < 0 || end > bytes.length || start > end) {
        throw new RangeError(`no bytes [${start}, ${end}) in ${bytes.length}`);
      }
      length += end - start;
      let i = start;
      if (used > 0) {
        while (used < 64 && i < end) block[used++] = bytes[i++]!;
        if (used < 64) return sha;
        compress(block, 0);
        used = 0;
      }
      for (; i + 64 <= end; i += 64) compress(bytes, i);
      while (i < end) block[used++] = bytes[i++]!;
      return sha;
    },
    hex() {
      finish();
      let out = "";
      for (let i = 0; i < 8; i++) {
        const v = h[i]!;
        out += HEX[v >>> 24]! + HEX[(v >>> 16) & 0xff]! + HEX[(v >>> 8) & 0xff]! + HEX[v & 0xff]!;
      }
      restart();
      return out;
    },
    hexIs(bytes, at) {
      finish();
      let same = at >= 0 && at + 64 <= bytes.length;
      for (let i = 0; same && i < 8; i++) {
        const v = h[i]!;
        for (let shift = 28; shift >= 0; shift -= 4) {
          if (bytes[at++] !== HEX_DIGITS[(v >>> shift) & 0xf]) {
            same = false;
            break;
          }
        }
      }
      restart();
      return same;
    },
  };
  return sha;
}
