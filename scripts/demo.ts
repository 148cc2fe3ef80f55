/**
 * `deno task demo`: the main job on a fresh machine. Creates the example harness in
 * `./harnesses/hello` when it is missing, validates it, runs it once offline and prints the result and
 * a summary of its trace.
 *
 * @module
 */

import { initHarness } from "../lib/construct/init_harness.ts";
import { openHive } from "../lib/hive/open.ts";
import { getTrace } from "../lib/journal/trace.ts";
import { startRun } from "../lib/runner/start_run.ts";
import { formatIssue } from "../lib/spec/issues.ts";
import { validateHarness } from "../lib/spec/validate.ts";
import { trustFolder } from "../lib/trust/store.ts";

const dir = "./harnesses/hello";
try {
  await Deno.stat(`${dir}/harness.yaml`);
  console.log(`Using the example harness in ${dir}`);
} catch {
  const created = await initHarness(dir);
  console.log(`Created the example harness in ${created.dir}`);
}
const result = await validateHarness(dir);
for (const issue of result.issues) console.log(`  ${formatIssue(issue)}`);
if (!result.valid) {
  console.error("The example harness is invalid; see the problems above.");
  Deno.exit(2);
}
console.log(`harness.yaml is valid (spec version ${result.spec_version?.slice(0, 12)}…).`);

// The demo runs the example it made; running it is what `deno task demo` was asked to do.
await trustFolder(dir);
const run = await startRun(dir, { input: "Hello! What does my note say?" });
const r = await run.result;
console.log(
  `\nRun ${r.run_id}: ${r.status} in ${r.turns} turns, $${
    r.cost_usd.toFixed(6)
  }, ${r.duration_ms} ms`,
);
console.log(`Output: ${r.output}`);
const trace = await getTrace(openHive(), r.harness_id, r.run_id);
console.log(
  `\nTrace (${
    trace.integrity.ok ? "hash chain verified" : `BROKEN at seq ${trace.integrity.broken_at}`
  }):`,
);
for (const e of trace.events) {
  const p = e.payload as Record<string, unknown>;
  const detail = e.type === "tool_call"
    ? ` ${p.name}(${JSON.stringify(p.arguments)})`
    : e.type === "model_response" && p.text
    ? ` "${p.text}"`
    : "";
  console.log(`  ${String(e.seq).padStart(2)} ${e.type}${detail}`);
}
console.log(
  `\nNext: deno task framework run ${dir} --input "Hi"   ·   deno task framework trace ${r.run_id}`,
);
