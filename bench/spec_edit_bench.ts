/**
 * Speed of the source-preserving YAML edits and of spec validation on a richly commented file.
 *
 * @module
 */

import { parseSpecText } from "../lib/spec/load.ts";
import { appendInText, setInText } from "../lib/spec/yaml_edit.ts";

const RICH = await Deno.readTextFile(
  new URL("../tests/fixtures/rich_harness.yaml", import.meta.url),
);

Deno.bench("parseSpecText() of a commented harness.yaml", { group: "spec" }, () => {
  parseSpecText(RICH);
});

Deno.bench("setInText() one scalar", { group: "spec", baseline: true }, () => {
  setInText(RICH, ["limits", "max_turns"], 12);
});

Deno.bench("appendInText() one skill", { group: "spec" }, () => {
  appendInText(RICH, ["skills"], { name: "x", description: "d", instructions: "i" });
});
