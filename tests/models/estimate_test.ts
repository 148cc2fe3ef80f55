/**
 * The token estimate of a request without reported usage: four characters a token of the system
 * prompt and the messages' JSON, the JSON length of a frozen message of plain values found once.
 *
 * @module
 */

import assert from "node:assert/strict";
import { freezeWithSlot, frozenSlot } from "../../lib/frozen_slot.ts";
import {
  estimateRequestTokens,
  estimateTokens,
  measureTogether,
  type Message,
} from "../../lib/models/types.ts";

const definition = (system: string, messages: Message[]) =>
  estimateTokens(system + JSON.stringify(messages));

Deno.test("estimateRequestTokens: the same estimate as the system prompt and the messages' JSON", () => {
  const frozen = (m: Message) => Object.freeze(m);
  const cases: [string, Message[]][] = [
    ["", []],
    ["Be brief.", [{ role: "user", content: "Hi" }]],
    ["s", [
      frozen({ role: "user", content: 'quote " and \\ and \n and \u0000 and é and \u{1f600}' }),
      frozen({ role: "assistant", content: "" }),
      { role: "user", content: "x".repeat(1001) },
    ]],
    ["", [{
      role: "assistant",
      content: "calling",
      tool_calls: [{ id: "c1", name: "lookup", arguments: { q: "a", n: [1, 2] } }],
    } as Message]],
  ];
  for (const [system, messages] of cases) {
    assert.equal(estimateRequestTokens(system, messages), definition(system, messages));
    // Again: the lengths remembered give the same.
    assert.equal(estimateRequestTokens(system, messages), definition(system, messages));
  }
});

Deno.test("estimateRequestTokens: a message that can change is measured each time", () => {
  // Frozen, but holding an object that can change: never remembered.
  const parts = [{ type: "text", text: "short" }];
  const m = Object.freeze({ role: "user", content: parts }) as unknown as Message;
  const before = estimateRequestTokens("", [m]);
  assert.equal(before, definition("", [m]));
  parts[0]!.text = "a much longer text than before, ".repeat(20);
  assert.equal(estimateRequestTokens("", [m]), definition("", [m]));
  assert.ok(estimateRequestTokens("", [m]) > before);
  // Not frozen: measured each time too.
  const open: Message = { role: "user", content: "a" };
  estimateRequestTokens("", [open]);
  open.content = "a".repeat(400);
  assert.equal(estimateRequestTokens("", [open]), definition("", [open]));
});

Deno.test("measureTogether: a history's sum, made from the last one's, gives the same estimate whatever follows it", () => {
  const frozen = (role: "user" | "assistant", content: string) =>
    freezeWithSlot({ role, content }) as Message;
  const turn = (i: number) => [frozen("user", `q${i} "quoted"`), frozen("assistant", `a${i}\n`)];
  let history = [...turn(1), ...turn(2), ...turn(3)];
  measureTogether(history);
  const check = (messages: Message[]) =>
    assert.equal(estimateRequestTokens("sys", messages), definition("sys", messages));
  for (let i = 4; i < 10; i++) {
    // A run's model calls: its history, then its own messages, more of them each call.
    const own: Message[] = [{ role: "user", content: `q${i}` }];
    check([...history, ...own]);
    own.push({
      role: "assistant",
      content: "",
      tool_calls: [{ id: "c", name: "t", arguments: {} }],
    });
    check([...history, ...own]);
    check([...history]);
    // The same first message, then others: not the sum kept for it.
    check([history[0]!, { role: "user", content: "other ".repeat(i) }]);
    check([history[0]!, ...history.slice(2)]);
    check([...history.slice(0, 3)]);
    check([history[0]!]);
    // The next turn's history: the oldest turn dropped, the newest added, its sum made from this.
    const next = [...history.slice(2), ...turn(i)];
    measureTogether(next, { items: history, dropped: 2 });
    history = next;
  }
  // Said to follow messages it does not start with: measured whole, the same estimate.
  const other = [...turn(20), ...turn(21)];
  measureTogether(other, { items: history, dropped: 2 });
  check([...other, { role: "user", content: "x" }]);
  // A message that can change among them: nothing kept, measured each time.
  const parts = [{ type: "text", text: "short" }];
  const open = [
    frozen("user", "q"),
    freezeWithSlot({ role: "user", content: parts }) as unknown as Message,
  ];
  measureTogether(open);
  check([...open]);
  parts[0]!.text = "longer ".repeat(40);
  check([...open]);
});

Deno.test("estimateRequestTokens: a message frozen with a slot keeps its length there, unless it can change", () => {
  const plain = freezeWithSlot({ role: "user", content: 'a "quoted" answer' }) as Message;
  assert.equal(estimateRequestTokens("s", [plain]), definition("s", [plain]));
  assert.equal(frozenSlot(plain)!.jsonLength, JSON.stringify(plain).length);
  assert.equal(estimateRequestTokens("s", [plain, plain]), definition("s", [plain, plain]));
  // Holding an object that can change: measured each time, nothing kept.
  const parts = [{ type: "text", text: "short" }];
  const holding = freezeWithSlot({ role: "user", content: parts }) as unknown as Message;
  assert.equal(estimateRequestTokens("", [holding]), definition("", [holding]));
  parts[0]!.text = "longer ".repeat(50);
  assert.equal(estimateRequestTokens("", [holding]), definition("", [holding]));
  assert.equal(frozenSlot(holding)!.jsonLength, undefined);
});
