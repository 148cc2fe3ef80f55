/**
 * The control plane's spec routes: `/set`, `/add/{kind}` (only `skill`) and `/remove`, as the remote
 * edit policy (frozen roots are 403).
 *
 * @module
 */

import { Hono } from "hono";
import { addItem } from "../../lib/construct/add_item.ts";
import { removeItem } from "../../lib/construct/remove_item.ts";
import { setField } from "../../lib/construct/set_field.ts";
import { okResponse } from "../../lib/http/response.ts";
import { readRequest, REMOVE_REQUEST, SET_REQUEST } from "../../lib/requests.ts";
import {
  type ControlPlaneApp,
  type ControlPlaneContext,
  type Env,
  remoteEditor,
} from "./context.ts";

/**
 * The spec routes.
 *
 * @param ctx The control plane's context.
 * @returns Their app.
 */
export function specRoutes(ctx: ControlPlaneContext): ControlPlaneApp {
  const app = new Hono<Env>();
  const dir = ctx.harness.dir;
  app.post("/set", async (c) => {
    const { who, body } = await ctx.authorizedBody(c, "mutate");
    const editor = remoteEditor(who);
    const { path, value } = readRequest(SET_REQUEST, body);
    const r = await setField(dir, path, value, editor);
    return okResponse({ path: r.path, old: r.old, new: r.new, spec_version: r.spec_version });
  });
  app.post("/add/:kind", async (c) => {
    const { who, body } = await ctx.authorizedBody(c, "mutate");
    const r = await addItem(dir, c.req.param("kind"), body, remoteEditor(who));
    return okResponse({ kind: r.kind, name: r.name, spec_version: r.spec_version });
  });
  app.post("/remove", async (c) => {
    const { who, body } = await ctx.authorizedBody(c, "mutate");
    const r = await removeItem(dir, readRequest(REMOVE_REQUEST, body), remoteEditor(who));
    return okResponse({ removed: r.removed, spec_version: r.spec_version });
  });
  return app;
}
