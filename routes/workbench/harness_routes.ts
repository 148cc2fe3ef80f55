/**
 * The workbench's harnesses: the catalog (rescanned), a new harness from a template, a harness's
 * detail, its spec (read, edited field by field or as a whole as the person's edit policy), its
 * validation, trust (a person's explicit action) and versions.
 *
 * @module
 */

import { Hono } from "hono";
import { addItem } from "../../lib/construct/add_item.ts";
import { initHarness } from "../../lib/construct/init_harness.ts";
import { removeItem } from "../../lib/construct/remove_item.ts";
import { frozenRootsChangedByText, replaceSpecText } from "../../lib/construct/replace_spec.ts";
import { setField } from "../../lib/construct/set_field.ts";
import { okResponse } from "../../lib/http/response.ts";
import {
  CREATE_HARNESS_REQUEST,
  readRequest,
  SPEC_CHECK_REQUEST,
  SPEC_TEXT_REQUEST,
  WORKBENCH_REMOVE_REQUEST,
  WORKBENCH_SET_REQUEST,
} from "../../lib/requests.ts";
import { frozenRoots } from "../../lib/harness_spec/frozen.ts";
import { checkHarnessCached } from "../../lib/harness_spec/cache.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { validateHarness } from "../../lib/validate/validate.ts";
import {
  catalogTree,
  duplicateFolders,
  harnessDetail,
  harnessDirOf,
  registerHarnessDir,
} from "../../lib/workbench/catalog.ts";
import { harnessFiles } from "../../lib/workbench/files.ts";
import { PERSON, personPolicy, type WorkbenchApp, type WorkbenchContext } from "./context.ts";

/**
 * The harness routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function harnessRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { hive } = ctx;
  const dirOf = (id: string) => harnessDirOf(hive, id);
  const catalog = async () =>
    okResponse({ harnesses: await catalogTree(hive), duplicates: duplicateFolders(hive) });

  app.get("/api/harnesses", async () => {
    await ctx.rescan.ifStale();
    return await catalog();
  });
  app.post("/api/harnesses/rescan", async (c) => {
    await c.req.raw.body?.cancel();
    await ctx.rescan.now();
    return await catalog();
  });
  app.post("/api/harnesses", async (c) => {
    const b = readRequest(CREATE_HARNESS_REQUEST, await ctx.body(c));
    const made = await initHarness(`${ctx.harnessesDir}/${b.id}`, {
      id: b.id,
      template: b.template ?? "blank",
      ...(b.name ? { name: b.name } : {}),
      actor: PERSON,
    });
    await registerHarnessDir(hive, made.dir);
    return okResponse(made, 201);
  });
  app.get(
    "/api/harnesses/:id",
    async (c) => okResponse(await harnessDetail(hive, c.req.param("id"))),
  );
  app.get(
    "/api/harnesses/:id/files",
    async (c) => okResponse(await harnessFiles(harnessDirOf(hive, c.req.param("id")))),
  );
  app.get("/api/harnesses/:id/spec", async (c) => {
    const { parsed } = await checkHarnessCached(dirOf(c.req.param("id")));
    return okResponse({
      id: c.req.param("id"),
      text: parsed.text,
      issues: parsed.issues,
      frozen: frozenRoots(personPolicy(false)),
    });
  });
  // Which frozen fields a whole text would change: asked before the PUT, so the page confirms first.
  app.post("/api/harnesses/:id/spec/frozen-changes", async (c) => {
    const { text } = readRequest(SPEC_CHECK_REQUEST, await ctx.body(c));
    return okResponse({
      frozen_changed: await frozenRootsChangedByText(
        dirOf(c.req.param("id")),
        text,
        personPolicy(false),
      ),
    });
  });
  app.put("/api/harnesses/:id/spec", async (c) => {
    const b = readRequest(SPEC_TEXT_REQUEST, await ctx.body(c));
    const r = await replaceSpecText(dirOf(c.req.param("id")), b.text, {
      actor: PERSON,
      policy: personPolicy(b.confirm_frozen),
    });
    return okResponse({ spec_version: r.spec_version, changed: r.changed, valid: r.valid });
  });
  app.post(
    "/api/harnesses/:id/validate",
    async (c) => okResponse(await validateHarness(dirOf(c.req.param("id")))),
  );
  app.post("/api/harnesses/:id/set", async (c) => {
    const b = readRequest(WORKBENCH_SET_REQUEST, await ctx.body(c));
    const r = await setField(dirOf(c.req.param("id")), b.path, b.value, {
      actor: PERSON,
      policy: personPolicy(b.confirm_frozen),
    });
    const { path, old, new: now, spec_version, changed, valid } = r;
    return okResponse({ path, old, new: now, spec_version, changed, valid });
  });
  app.post("/api/harnesses/:id/add/:kind", async (c) => {
    const r = await addItem(dirOf(c.req.param("id")), c.req.param("kind"), await ctx.body(c), {
      actor: PERSON,
      policy: personPolicy(false),
    });
    return okResponse({ kind: r.kind, name: r.name, spec_version: r.spec_version });
  });
  app.post("/api/harnesses/:id/remove", async (c) => {
    const { confirm_frozen, ...target } = readRequest(WORKBENCH_REMOVE_REQUEST, await ctx.body(c));
    const r = await removeItem(dirOf(c.req.param("id")), target, {
      actor: PERSON,
      policy: personPolicy(confirm_frozen),
    });
    return okResponse({ removed: r.removed, spec_version: r.spec_version });
  });
  app.post("/api/harnesses/:id/trust", async (c) => {
    // An explicit person's action in the UI: the copilot has no such tool.
    const r = await trustFolder(dirOf(c.req.param("id")));
    return okResponse({ trusted: r.path, added: r.added });
  });
  return app;
}
