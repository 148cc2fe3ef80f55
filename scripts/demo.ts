/**
 * `deno task demo`: the main job on a fresh machine. Creates the example harness in
 * `./harnesses/hello` when it is missing and validates it.
 *
 * @module
 */

import { initHarness } from "../lib/construct/init_harness.ts";
import { formatIssue } from "../lib/spec/issues.ts";
import { validateHarness } from "../lib/spec/validate.ts";

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
console.log(`harness.yaml is valid (spec version ${result.spec_version}).`);
console.log("Next: deno task framework get ./harnesses/hello   (or `framework --help`)");
