/**
 * The architecture, checked on this checkout: lib/ has floors that only point down
 * (docs/architecture.md; the table is tests/architecture/floors.ts), lib/ never imports a shell,
 * ui/ takes only types and vocabulary from lib/, the shells (routes/, cli/) hold no SQL, no
 * unchecked request bodies and no run launch of their own, no function is over 120 lines, and each
 * shared rule is written once. The module graph is Deno's own (`deno info --json`) plus what it
 * cannot see, read from each file's syntax tree (tests/architecture/graph.ts). A failure names the
 * file, the import and the rule. tests/architecture/planted_test.ts shows each rule failing.
 *
 * @module
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  checkEveryFolderHasAFloor,
  checkFloorDiagram,
  checkFunctionLengths,
  checkLibImports,
  checkRulesWrittenOnce,
  checkShells,
  checkUiImports,
} from "./architecture/checks.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

Deno.test("lib/ imports only point down its floors, and never at a shell", async () => {
  const problems = await checkLibImports(ROOT);
  assert.deepEqual(problems, [], `imports that point up:\n${problems.join("\n")}`);
});

Deno.test("ui/ imports lib/ types and floor-1 vocabulary only", async () => {
  const problems = await checkUiImports(ROOT);
  assert.deepEqual(problems, [], problems.join("\n"));
});

Deno.test("the shells hold no SQL, no unchecked body and no run launch of their own", async () => {
  const problems = await checkShells(ROOT);
  assert.deepEqual(problems, [], problems.join("\n"));
});

Deno.test("no function over 120 lines in lib/, cli/, routes/ or ui/", async () => {
  const problems = await checkFunctionLengths(ROOT);
  assert.deepEqual(problems, [], `functions over 120 lines:\n${problems.join("\n")}`);
});

Deno.test("every lib/ folder has a floor", async () => {
  const problems = await checkEveryFolderHasAFloor(ROOT);
  assert.deepEqual(problems, [], problems.join("\n"));
});

Deno.test("docs/architecture.md's floor diagram is the floors table's", async () => {
  const problems = await checkFloorDiagram(ROOT);
  assert.deepEqual(problems, [], problems.join("\n"));
});

Deno.test("each shared rule is written in one place", async () => {
  const problems = await checkRulesWrittenOnce(ROOT);
  assert.deepEqual(problems, [], problems.join("\n"));
});
