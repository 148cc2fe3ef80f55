import assert from "node:assert/strict";
import { eachByteLine } from "../lib/lines.ts";

/** A source that hands out its bytes `step` at a time (lines span reads). */
function source(text: string, step: number) {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return {
    read(into: Uint8Array): Promise<number | null> {
      if (at >= bytes.length) return Promise.resolve(null);
      const n = Math.min(step, into.length, bytes.length - at);
      into.set(bytes.subarray(at, at + n));
      at += n;
      return Promise.resolve(n);
    },
  };
}

async function lines(text: string, step: number) {
  const out: [string, number, boolean][] = [];
  await eachByteLine(source(text, step), (bytes, end, complete) => {
    out.push([new TextDecoder().decode(bytes), end, complete]);
  });
  return out;
}

Deno.test("eachByteLine: lines with their end offsets, whole or across reads, and a torn tail", async () => {
  for (const step of [1, 3, 1024]) {
    assert.deepEqual(await lines("ab\n\ncde\nfg", step), [
      ["ab", 3, true],
      ["", 4, true],
      ["cde", 8, true],
      ["fg", 10, false],
    ], `reads of ${step}`);
    assert.deepEqual(await lines("x\n", step), [["x", 2, true]]);
    assert.deepEqual(await lines("", step), []);
  }
});

Deno.test("eachByteLine: returning false stops the reading", async () => {
  const seen: string[] = [];
  await eachByteLine(source("a\nb\nc\n", 1), (bytes) => {
    seen.push(new TextDecoder().decode(bytes));
    return seen.length < 2;
  });
  assert.deepEqual(seen, ["a", "b"]);
});
