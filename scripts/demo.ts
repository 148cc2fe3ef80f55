/**
 * `deno task demo`: the main job on a fresh machine. Creates the example harness in
 * `./harnesses/hello` when it is missing, runs it once offline, and starts the workbench on
 * http://127.0.0.1:8770 with the example selected.
 *
 * @module
 */

import { initHarness } from "../lib/construct/init_harness.ts";
import { startRun } from "../lib/runs/service.ts";
import { validateHarness } from "../lib/validate/validate.ts";
import { formatIssue } from "../lib/harness_spec/issues.ts";
import { trustFolder } from "../lib/trust/store.ts";
import { createConversation, listConversations } from "../lib/workbench/conversations.ts";
import { openWorkbenchDb } from "../lib/workbench/db.ts";
import { slashUsages } from "../lib/workbench/slash_commands.ts";
import { startWorkbench } from "../routes/workbench_server.ts";

const dir = "./harnesses/hello";
const GETTING_STARTED = "Getting started";
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
// The demo runs the example it made; running it is what `deno task demo` was asked to do.
await trustFolder(dir);
const r = await (await startRun(dir, { input: "Hello! What does my note say?" })).result;
console.log(`Ran it once: ${r.status} in ${r.turns} turns — "${r.output}"`);

// One "Getting started" conversation, made on the first start only (whatever it selects since).
const db = openWorkbenchDb();
if (!listConversations(db).some((c) => c.title === GETTING_STARTED)) {
  createConversation(db, { title: GETTING_STARTED, selected_harness_id: result.id ?? null });
}
const port = Number(Deno.env.get("FRAMEWORK_UI_PORT") ?? 8770);
const wb = await startWorkbench({ port });
if (!wb.copilotModel) {
  console.log(
    "\nThe copilot needs a model to converse: set FRAMEWORK_COPILOT_MODEL (see docs/workbench.md).",
  );
  console.log(
    `Without one, the chat takes slash commands that call the copilot's tools directly: ${slashUsages()} (type / in the chat; /help lists them).`,
  );
}
console.log(
  `\nWorkbench: ${wb.openUrl}  (the example harness "${result.id}" is selected; Ctrl-C stops it)`,
);
