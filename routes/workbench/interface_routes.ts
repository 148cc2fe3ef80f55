/**
 * The Use tab's server side: the harness's page for the sandboxed preview (served with a CSP that
 * sandboxes it wherever it is opened and lets it connect nowhere), writing the page, and storing a
 * file the page's bridge uploads (then run with it as `input_file`).
 *
 * @module
 */

import { Hono } from "hono";
import { notFound } from "../../lib/errors.ts";
import { readBodyBytes } from "../../lib/http/body.ts";
import { okResponse } from "../../lib/http/response.ts";
import { generateInterface, interfaceHtml, interfaceStatus } from "../../lib/interface/generate.ts";
import { interfaceCsp } from "../../lib/interface/page.ts";
import { MAX_UPLOAD_BYTES, storeUpload } from "../../lib/interface/uploads.ts";
import { GENERATE_REQUEST, readRequest } from "../../lib/requests.ts";
import { harnessDirOf } from "../../lib/workbench/catalog.ts";
import type { WorkbenchApp, WorkbenchContext } from "./context.ts";

/**
 * The interface routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function interfaceRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { hive } = ctx;
  app.get("/api/harnesses/:id/interface", async (c) => {
    const { html, generated } = await interfaceHtml(harnessDirOf(hive, c.req.param("id")));
    if (!generated) {
      throw notFound("No page yet: generate it (Use tab, or framework generate <dir>)");
    }
    return new Response(html, {
      headers: {
        "content-type": "text/html; charset=utf-8",
        // Sandboxed even when opened on its own: an opaque origin that can reach nothing.
        "content-security-policy": interfaceCsp(false),
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "cache-control": "no-store",
      },
    });
  });
  app.get(
    "/api/harnesses/:id/interface/status",
    async (c) => okResponse(await interfaceStatus(harnessDirOf(hive, c.req.param("id")))),
  );
  app.post("/api/harnesses/:id/interface", async (c) => {
    const { input, force } = readRequest(GENERATE_REQUEST, await ctx.body(c, true));
    return okResponse(
      await generateInterface(harnessDirOf(hive, c.req.param("id")), {
        ...(input ? { input } : {}),
        force: force === true,
      }),
      201,
    );
  });
  app.post("/api/harnesses/:id/uploads", async (c) => {
    const dir = harnessDirOf(hive, c.req.param("id"));
    const bytes = await readBodyBytes(c.req.raw, MAX_UPLOAD_BYTES);
    return okResponse(await storeUpload(dir, c.req.query("name") ?? "", bytes), 201);
  });
  return app;
}
