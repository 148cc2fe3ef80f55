/**
 * A harness's MCP servers as the Overview shows them: on a person's "connect", each server is started
 * once, its tools listed, and stopped (stdio servers only in a trusted folder). Starting processes is
 * a write, so it is a `POST` (which the launcher refuses from other sites), never a `GET` that any
 * page could send, and one listing per harness runs at a time. Administration stays local: no route
 * changes `mcp_servers`.
 *
 * @module
 */

import { Hono } from "hono";
import { okResponse } from "../../lib/http/response.ts";
import { loadSpec } from "../../lib/harness_spec/load.ts";
import { listServerTools } from "../../lib/tools/mcp.ts";
import { trustedEntryFor } from "../../lib/trust/store.ts";
import { harnessDirOf } from "../../lib/workbench/catalog.ts";
import type { WorkbenchApp, WorkbenchContext } from "./context.ts";

/**
 * The MCP routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function mcpRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  app.post("/api/harnesses/:id/mcp", async (c) => {
    const loaded = await loadSpec(harnessDirOf(ctx.hive, c.req.param("id")));
    const trusted = !!(await trustedEntryFor(loaded.dir));
    return okResponse({ servers: await listServerTools(loaded.dir, loaded.spec, trusted) });
  });
  return app;
}
