/**
 * The shared-memory ring of the PostgreSQL bridge (lib/pg/ring.ts): records come out in the order
 * they went in, across the end of the ring, whatever their size; a record that does not fit is
 * refused whole (nothing written), and fits again once the reader has made room.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ringOver } from "../../lib/pg/ring.ts";

/** A writer's and a reader's view of one ring of `capacity` bytes. */
function ring(capacity: number) {
  const memory = new SharedArrayBuffer(8 + capacity);
  return { writer: ringOver(memory, 0, 8, capacity), reader: ringOver(memory, 0, 8, capacity) };
}

Deno.test("ring: records come out in order, across the end of the ring, many times over", () => {
  const { writer, reader } = ring(256);
  const sent: string[] = [];
  const got: string[] = [];
  for (let i = 0; i < 2_000; i++) {
    const text = `${i}:` + "ü€😀x".repeat(i % 9);
    while (!writer.push(text)) got.push(reader.shift()!);
    sent.push(text);
    if (i % 3 === 0) {
      const next = reader.shift();
      if (next !== undefined) got.push(next);
    }
  }
  for (let next = reader.shift(); next !== undefined; next = reader.shift()) got.push(next);
  assert.deepEqual(got, sent);
});

Deno.test("ring: a record that does not fit is refused whole, and the ring goes on after", () => {
  const { writer, reader } = ring(128);
  assert.equal(writer.push("x".repeat(100)), false, "larger than the ring");
  assert.equal(reader.shift(), undefined, "nothing was written");
  const sent: string[] = [];
  for (let i = 0; writer.push(`${i}:${"a".repeat(12)}`); i++) sent.push(`${i}:${"a".repeat(12)}`);
  assert.ok(sent.length >= 2, "the ring held records before it was full");
  const got: string[] = [];
  for (let next = reader.shift(); next !== undefined; next = reader.shift()) got.push(next);
  assert.deepEqual(got, sent, "the refused record is not there, the others are, in order");
  assert.equal(writer.push("small"), true, "room again once read");
  assert.equal(reader.shift(), "small");
});
