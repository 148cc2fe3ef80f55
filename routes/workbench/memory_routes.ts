/**
 * Settings › Memory: every memory, filtered by scope or searched; one memory; forgetting one.
 *
 * @module
 */

import { Hono } from "hono";
import { badInput } from "../../lib/errors.ts";
import { okResponse } from "../../lib/http/response.ts";
import { forgetMemory, getMemory, listMemories } from "../../lib/workbench/memories.ts";
import type { WorkbenchApp, WorkbenchContext } from "./context.ts";

/**
 * The memory routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function memoryRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { db } = ctx;
  app.get("/api/memories", (c) => {
    const scope = c.req.query("scope");
    if (scope !== undefined && scope !== "global" && scope !== "harness") {
      throw badInput('scope is "global" or "harness"');
    }
    const harness = c.req.query("harness_id");
    const query = c.req.query("q");
    return okResponse({
      memories: listMemories(db, {
        ...(scope ? { scope } : {}),
        ...(harness ? { harness_id: harness } : {}),
        ...(query ? { query } : {}),
      }),
    });
  });
  app.get("/api/memories/:id", (c) => okResponse(getMemory(db, c.req.param("id"))));
  app.delete(
    "/api/memories/:id",
    (c) => okResponse({ forgotten: forgetMemory(db, c.req.param("id")).id }),
  );
  return app;
}
