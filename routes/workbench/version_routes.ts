/**
 * Versions and evaluations (docs/workbench-api.md, Versions and evaluations): a harness's version
 * timeline, two versions compared, a version restored as the person's edit, eval sets run on the
 * current version or on a recorded one, and a proposal measured before it is applied.
 *
 * @module
 */

import { Hono } from "hono";
import {
  frozenRootsChangedByRestore,
  restoreVersion,
} from "../../lib/construct/restore_version.ts";
import { compareVersions, versionTimeline } from "../../lib/evals/compare.ts";
import { measureProposal } from "../../lib/evals/measure_proposal.ts";
import { runEval, runEvalOnText } from "../../lib/evals/run_eval.ts";
import { notFound } from "../../lib/errors.ts";
import { latestEval } from "../../lib/hive/evals.ts";
import { findSpecVersion } from "../../lib/hive/spec_versions.ts";
import { okResponse } from "../../lib/http/response.ts";
import { EVAL_REQUEST, MEASURE_REQUEST, readRequest, RESTORE_REQUEST } from "../../lib/requests.ts";
import { listEvalSets } from "../../lib/harness_spec/eval_sets.ts";
import { loadSpecCached } from "../../lib/harness_spec/cache.ts";
import { wholeNumber } from "../../lib/whole_number.ts";
import { harnessRefOf } from "../../lib/workbench/catalog.ts";
import { PERSON, personPolicy, type WorkbenchApp, type WorkbenchContext } from "./context.ts";

/**
 * The version routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function versionRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { hive } = ctx;
  const currentOf = async (dir: string) =>
    (await loadSpecCached(dir).catch(() => undefined))?.version;

  app.get("/api/harnesses/:id/versions", async (c) => {
    const ref = harnessRefOf(hive, c.req.param("id"));
    const limit = wholeNumber(c.req.query("limit"), {
      name: "limit",
      min: 1,
      max: 1000,
      fallback: 50,
    });
    return okResponse({ versions: versionTimeline(hive, ref, await currentOf(ref.dir), limit) });
  });
  app.get("/api/harnesses/:id/versions/compare", (c) => {
    const ref = harnessRefOf(hive, c.req.param("id"));
    const a = c.req.query("a");
    const b = c.req.query("b");
    if (!a || !b) throw notFound("Name both versions: ?a=<version>&b=<version>");
    return okResponse(compareVersions(hive, ref, a, b, c.req.query("set") || undefined));
  });
  // Which frozen fields a restore would change: asked first, so the page confirms before it writes.
  app.get("/api/harnesses/:id/versions/:version/frozen-changes", async (c) => {
    const ref = harnessRefOf(hive, c.req.param("id"));
    return okResponse({
      frozen_changed: await frozenRootsChangedByRestore(
        hive,
        ref,
        c.req.param("version"),
        personPolicy(false),
      ),
    });
  });
  app.post("/api/harnesses/:id/versions/:version/restore", async (c) => {
    const ref = harnessRefOf(hive, c.req.param("id"));
    const { confirm_frozen } = readRequest(RESTORE_REQUEST, await ctx.body(c, true));
    const r = await restoreVersion(hive, ref, c.req.param("version"), {
      actor: PERSON,
      policy: personPolicy(confirm_frozen),
    });
    return okResponse({
      restored: c.req.param("version"),
      spec_version: r.spec_version,
      changed: r.changed,
    });
  });

  app.get("/api/harnesses/:id/evals", async (c) => {
    const ref = harnessRefOf(hive, c.req.param("id"));
    const sets = await listEvalSets(ref.dir);
    const current = await currentOf(ref.dir);
    return okResponse({
      sets,
      latest: Object.fromEntries(
        sets.map((s) => [s, current ? latestEval(hive, ref, current, s) ?? null : null]),
      ),
    });
  });
  app.post("/api/harnesses/:id/evals", async (c) => {
    const ref = harnessRefOf(hive, c.req.param("id"));
    const { set, version } = readRequest(EVAL_REQUEST, await ctx.body(c, true));
    const options = set !== undefined ? { set } : {};
    const current = await currentOf(ref.dir);
    if (version === undefined || findSpecVersion(hive, ref, version)?.version === current) {
      return okResponse(await runEval(hive, ctx.runs, ref.dir, options));
    }
    const row = findSpecVersion(hive, ref, version);
    if (!row) throw notFound(`No version ${JSON.stringify(version)} of ${ref.id}`, { version });
    return okResponse(await runEvalOnText(hive, ctx.runs, ref.dir, row.yaml, options));
  });
  app.post("/api/harnesses/:id/proposals/:pid/measure", async (c) => {
    const ref = harnessRefOf(hive, c.req.param("id"));
    const { set } = readRequest(MEASURE_REQUEST, await ctx.body(c, true));
    return okResponse(
      await measureProposal(hive, ctx.runs, ref.dir, c.req.param("pid"), set ? { set } : {}),
    );
  });
  return app;
}
