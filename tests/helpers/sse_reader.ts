/**
 * Reading a server-sent event stream in tests, frame by frame as it arrives.
 *
 * @module
 */

import assert from "node:assert/strict";

// deno-lint-ignore no-explicit-any
type Json = any;

/** One frame. */
export interface Frame {
  event: string;
  data: Json;
  id?: string;
}

/** Reads server-sent events frame by frame, as they arrive. */
export class SseReader {
  #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  #done = false;

  constructor(res: Response) {
    assert.ok(res.body, "a streamed body");
    this.#reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next frame, or null at the end of the stream (heartbeat comments are skipped). */
  async next(): Promise<Frame | null> {
    while (true) {
      const end = this.#buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        if (!block.trim() || block.startsWith(":")) continue;
        const frame: Frame = { event: "message", data: undefined };
        for (const line of block.split("\n")) {
          if (line.startsWith("event: ")) frame.event = line.slice(7);
          else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6));
          else if (line.startsWith("id: ")) frame.id = line.slice(4);
        }
        return frame;
      }
      if (this.#done) {
        assert.equal(this.#buffer.trim(), "", "the stream ends on a whole frame");
        return null;
      }
      const { value, done } = await this.#reader.read();
      if (done) this.#done = true;
      else this.#buffer += value;
    }
  }

  /** Frames until one of the given event (included); fails at the end of the stream. */
  async until(predicate: (f: Frame) => boolean, what: string): Promise<Frame[]> {
    const out: Frame[] = [];
    while (true) {
      const f = await this.next();
      if (!f) assert.fail(`the stream ended before ${what}: ${out.map((x) => x.event)}`);
      out.push(f);
      if (predicate(f)) return out;
    }
  }

  /** Every remaining frame. */
  async rest(): Promise<Frame[]> {
    const out: Frame[] = [];
    for (let f = await this.next(); f; f = await this.next()) out.push(f);
    return out;
  }

  /** Lets go of the stream (a no-op once it has ended). */
  async close(): Promise<void> {
    if (!this.#done) await this.#reader.cancel().catch(() => {});
    this.#reader.releaseLock();
  }
}
