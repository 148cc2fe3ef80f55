/**
 * `deno task workbench`: the workbench from a checkout. The UI listens on 127.0.0.1:5173 and the API on
 * 127.0.0.1:8770 (`FRAMEWORK_UI_PORT`, `FRAMEWORK_UI_API_PORT`); state lives in the checkout's
 * `.framework-dev/` (git-ignored), not in `~/.framework`. The task restarts it when code changes.
 *
 * @module
 */

import { setFrameworkHome } from "../lib/paths.ts";
import { startWorkbench } from "../routes/workbench_server.ts";
import { buildClientBundle } from "../ui/build.ts";

const checkout = new URL("..", import.meta.url).pathname;
if (!Deno.env.get("FRAMEWORK_HOME")) setFrameworkHome(`${checkout}.framework-dev`);
const port = Number(Deno.env.get("FRAMEWORK_UI_PORT") ?? 5173);
const apiPort = Number(Deno.env.get("FRAMEWORK_UI_API_PORT") ?? 8770);
// The browser code is built from ui/ now (not the committed bundle), so a change shows on reload;
// the task restarts this script on change, and open pages reload themselves.
const [js, css] = await Promise.all([
  buildClientBundle(),
  Deno.readTextFile(`${checkout}ui/app.css`),
]);
const wb = await startWorkbench({
  port,
  apiPort,
  harnessesDir: `${checkout}harnesses`,
  dev: true,
  assets: { js, css },
});
console.log(
  `Workbench (development): ${wb.openUrl}  ·  API on ${wb.apiUrl}  ·  state in .framework-dev/`,
);
