import assert from "node:assert/strict";
import { DEFAULT_MAX_LINE_BYTES, eachByteLine, LineTooLongError, readLines } from "../lib/lines.ts";

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

/** A stream of the given chunks (strings are UTF-8), recording whether it was cancelled. */
function chunks(parts: (string | Uint8Array)[]) {
  const encoder = new TextEncoder();
  const state = { cancelled: false, pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[state.pulled++];
      if (part === undefined) controller.close();
      else controller.enqueue(typeof part === "string" ? encoder.encode(part) : part);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

/** `text` cut into chunks of `step` bytes (multi-byte characters cut too). */
function cut(text: string, step: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += step) out.push(bytes.slice(at, at + step));
  return out;
}

async function collect(
  stream: ReadableStream<Uint8Array>,
  options?: Parameters<typeof readLines>[1],
): Promise<string[]> {
  const out: string[] = [];
  for await (const line of readLines(stream, options)) out.push(line);
  return out;
}

Deno.test("readLines() yields the same lines whatever the chunk boundaries", async () => {
  const text = "ab\n\nçé 😀\r\nlast line\r\nx\ry\ntail";
  for (const step of [1, 2, 3, 5, 7, 1024]) {
    assert.deepEqual(await collect(chunks(cut(text, step)).stream), [
      "ab",
      "",
      "çé 😀",
      "last line",
      "x\ry",
      "tail",
    ], `chunks of ${step} bytes`);
  }
  assert.deepEqual(await collect(chunks([]).stream), []);
  assert.deepEqual(await collect(chunks(["\n"]).stream), [""]);
});

Deno.test("readLines() takes CRLF as one line end, also split between chunks", async () => {
  assert.deepEqual(await collect(chunks(["a\r", "\nb\r\n", "\r", "\n"]).stream), ["a", "b", ""]);
  assert.deepEqual(await collect(chunks(["a\r"]).stream), ["a\r"], "a \\r without \\n is content");
});

Deno.test("readLines() caps a line: exactly the limit passes, one byte more throws", async (t) => {
  const limit = 8;
  await t.step("with a newline, in one chunk or byte by byte", async () => {
    for (const step of [1, 3, 100]) {
      assert.deepEqual(
        await collect(chunks(cut("12345678\n12345678\r\n12345678", step)).stream, {
          maxLineBytes: limit,
        }),
        ["12345678", "12345678", "12345678"],
      );
      for (const over of ["123456789\n", "123456789\r\n", "123456789", "12345678\r"]) {
        await assert.rejects(
          collect(chunks(cut(over, step)).stream, { maxLineBytes: limit }),
          (err: unknown) =>
            err instanceof LineTooLongError && err.limit === limit &&
            /longer than 8 bytes/.test(err.message),
          `${JSON.stringify(over)} in chunks of ${step}`,
        );
      }
    }
  });
  await t.step("it throws before the line ends and cancels the stream", async () => {
    const endless = new Array(1000).fill("x".repeat(1024));
    const { stream, state } = chunks(["ok\n", ...endless]);
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const line of readLines(stream, { maxLineBytes: 4096 })) seen.push(line);
    }, LineTooLongError);
    assert.deepEqual(seen, ["ok"]);
    assert.ok(state.pulled < 10, `it stopped reading after the limit (${state.pulled} chunks)`);
    assert.equal(state.cancelled, true);
  });
  await t.step("the default cap is 1 MiB", async () => {
    assert.equal(DEFAULT_MAX_LINE_BYTES, 1024 * 1024);
    const exact = "y".repeat(DEFAULT_MAX_LINE_BYTES);
    assert.equal((await collect(chunks([exact, "\n"]).stream))[0]!.length, exact.length);
    await assert.rejects(collect(chunks([exact, "y\n"]).stream), /longer than 1 MiB/);
  });
  await t.step("onTooLong skips the line and reading goes on", async () => {
    const skipped: number[] = [];
    const lines = await collect(
      chunks(cut("ok\nmuch too long\nnext\nlong again", 3)).stream,
      { maxLineBytes: 4, onTooLong: (err) => skipped.push(err.limit) },
    );
    assert.deepEqual(lines, ["ok", "next"]);
    assert.deepEqual(skipped, [4, 4]);
  });
});
