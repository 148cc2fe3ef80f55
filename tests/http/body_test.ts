import assert from "node:assert/strict";
import { FrameworkError } from "../../lib/errors.ts";
import { readBodyBytes, readJsonObject } from "../../lib/http/body.ts";

const post = (body: BodyInit, headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1/run", { method: "POST", body, headers });

const is413 = (err: unknown) => err instanceof FrameworkError && err.httpStatus === 413;

Deno.test("readBodyBytes() reads a body with a declared length, and one streamed without", async () => {
  const text = JSON.stringify({ input: "hello" });
  const declared = await readBodyBytes(post(text, { "content-length": String(text.length) }), 64);
  assert.equal(new TextDecoder().decode(declared), text);
  const stream = ReadableStream.from([
    new TextEncoder().encode(text.slice(0, 5)),
    new TextEncoder().encode(text.slice(5)),
  ]);
  const streamed = await readBodyBytes(post(stream), 64);
  assert.equal(new TextDecoder().decode(streamed), text);
});

Deno.test("readBodyBytes() refuses past the limit whatever the declared length says", async () => {
  const big = "x".repeat(100);
  await assert.rejects(readBodyBytes(post(big, { "content-length": "100" }), 64), is413);
  // A request made in process may declare less than it carries: still refused.
  await assert.rejects(readBodyBytes(post(big, { "content-length": "10" }), 64), is413);
  const stream = ReadableStream.from([new TextEncoder().encode(big)]);
  await assert.rejects(readBodyBytes(post(stream), 64), is413);
  await assert.rejects(readJsonObject(post(big, { "content-length": "10" }), 64), is413);
});
