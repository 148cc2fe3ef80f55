/**
 * The token estimate of a request without reported usage: four characters a token of the system
 * prompt and the messages' JSON, the JSON length of a frozen message of plain values found once.
 *
 * @module
 */

import assert from "node:assert/strict";
import { estimateRequestTokens, estimateTokens, type Message } from "../../lib/models/types.ts";

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
