/**
 * The workbench's own routes: its health (the copilot's model, the harness folder) and the builtin
 * catalog with the copilot's tool names.
 *
 * @module
 */

import { Hono } from "hono";
import { okResponse } from "../../lib/http/response.ts";
import { builtinCatalog } from "../../lib/harness_spec/builtins.ts";
import { copilotToolNames } from "../../lib/workbench/copilot/tools.ts";
import type { WorkbenchApp, WorkbenchContext } from "./context.ts";

/**
 * The meta routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function metaRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const model = ctx.copilotModel;
  app.get("/api/health", () =>
    okResponse({
      ok: true,
      copilot: model
        ? { model: `${model.model.provider}:${model.model.name ?? ""}`, source: model.source }
        : null,
      harnesses_dir: ctx.harnessesDir,
    }));
  app.get(
    "/api/catalog/builtins",
    () => okResponse({ builtins: builtinCatalog(), copilot_tools: copilotToolNames() }),
  );
  return app;
}
