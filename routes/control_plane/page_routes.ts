/**
 * The harness's page on a deployment: `GET /` answers the generated interface (no token for the page;
 * the page's own `POST /run` still needs one, pasted by the person). The page written by
 * `framework generate` is served when there is one, else one made from the spec.
 *
 * @module
 */

import { Hono } from "hono";
import { interfaceHtml } from "../../lib/interface/generate.ts";
import { interfaceCsp } from "../../lib/interface/page.ts";
import type { ControlPlaneApp, ControlPlaneContext, Env } from "./context.ts";

/**
 * The page route.
 *
 * @param ctx The control plane's context.
 * @returns Its app.
 */
export function pageRoutes(ctx: ControlPlaneContext): ControlPlaneApp {
  const app = new Hono<Env>();
  app.get("/", async () => {
    const { html } = await interfaceHtml(ctx.harness.dir);
    return new Response(html, {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": interfaceCsp(true),
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "cache-control": "no-store",
      },
    });
  });
  return app;
}
