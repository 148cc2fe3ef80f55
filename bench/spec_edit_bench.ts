/**
 * Speed of spec validation and of the source-preserving YAML edits on a richly commented file.
 *
 * @module
 */

import { parseSpecText } from "../lib/harness_spec/load.ts";
import { appendInText, setInText } from "../lib/harness_spec/yaml_edit.ts";
import { fmt, measure, report } from "./measure.ts";

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const rich = await Deno.readTextFile(
    new URL("../tests/fixtures/rich_harness.yaml", import.meta.url),
  );
  const parse = await measure(500, () => parseSpecText(rich));
  const set = await measure(500, () => setInText(rich, ["limits", "max_turns"], 12));
  const append = await measure(
    500,
    () => appendInText(rich, ["skills"], { name: "x", description: "d", instructions: "i" }),
  );
  report("parseSpecText (70-line commented file)", {
    mean: fmt(parse.mean_ms, " ms"),
    p99: fmt(parse.p99_ms, " ms"),
  });
  report("setInText one scalar (verified splice)", {
    mean: fmt(set.mean_ms, " ms"),
    ratio_to_parse: fmt(set.mean_ms / parse.mean_ms, "x"),
  });
  report("appendInText one skill", {
    mean: fmt(append.mean_ms, " ms"),
    ratio_to_parse: fmt(append.mean_ms / parse.mean_ms, "x"),
  });
}
