/**
 * A value frozen with a slot: frozen, its slot hidden from every way of reading its data, and mutable
 * for the readers that keep what they found out about the value.
 *
 * @module
 */

import assert from "node:assert/strict";
import { freezeWithSlot, frozenSlot, startsWithItems } from "../lib/frozen_slot.ts";

Deno.test("freezeWithSlot: frozen, with a slot no reader of its data sees", () => {
  const m = freezeWithSlot({ role: "user", content: "Hi" });
  assert.ok(Object.isFrozen(m));
  assert.deepEqual(Object.keys(m), ["role", "content"]);
  assert.equal(JSON.stringify(m), '{"role":"user","content":"Hi"}');
  assert.deepEqual({ ...m }, { role: "user", content: "Hi" });
  assert.deepEqual(Object.getOwnPropertyNames(m), ["role", "content"]);
  // The slot is the value's own, and can be written though the value cannot.
  const slot = frozenSlot(m)!;
  slot.jsonLength = 31;
  assert.equal(frozenSlot(m)!.jsonLength, 31);
  assert.notEqual(frozenSlot(freezeWithSlot({ role: "user", content: "Hi" })), slot);
  assert.throws(() => ((m as { content: string }).content = "changed"), TypeError);
});

Deno.test("frozenSlot: none for a value frozen otherwise, or not an object", () => {
  assert.equal(frozenSlot(Object.freeze({ a: 1 })), undefined);
  assert.equal(frozenSlot({ a: 1 }), undefined);
  assert.equal(frozenSlot(null), undefined);
  assert.equal(frozenSlot("text"), undefined);
  assert.equal(frozenSlot(undefined), undefined);
});

Deno.test("startsWithItems: the same objects in order, from any of the other list's items", () => {
  const [a, b, c] = [{}, {}, {}];
  assert.ok(startsWithItems([a, b, c], [a, b]));
  assert.ok(startsWithItems([a, b], [a, b]));
  assert.ok(startsWithItems([b, c, a], [a, b], 1));
  assert.ok(startsWithItems([c], [a, b], 2), "nothing left to look for");
  assert.ok(!startsWithItems([a], [a, b]), "shorter than the items");
  assert.ok(!startsWithItems([b, a], [a, b]));
  assert.ok(!startsWithItems([{ ...a }], [a]), "an equal copy is not the same object");
  assert.ok(!startsWithItems([a, b], [a, b], -1));
  assert.ok(!startsWithItems([a, b], [a, b], 3));
});
