/**
 * The workbench API (behind `/api` of the launcher): conversations and chat, the harness catalog,
 * specs (edited through the construction API), runs and traces, proposals and memories. It listens on
 * a private loopback port and refuses any request without the launcher's per-launch secret.
 *
 * @example
 * ```ts
 * const api = await createWorkbenchApi({ secret, harnessesDir: "./harnesses" });
 * Deno.serve({ hostname: "127.0.0.1", port: 0 }, api.fetch);
 * ```
 *
 * @module
 */

import { withCheckedHost } from "../lib/http/host.ts";
import { Hono } from "hono";
import { addItem } from "../lib/construct/add_item.ts";
import { removeRequest, setRequest } from "../lib/construct/edit_requests.ts";
import { replaceSpecText } from "../lib/construct/replace_spec.ts";
import { removeItem } from "../lib/construct/remove_item.ts";
import { setField } from "../lib/construct/set_field.ts";
import { badInput, FrameworkError } from "../lib/errors.ts";
import { applyProposal, rejectProposal } from "../lib/evolve/decide.ts";
import { proposeImprovement } from "../lib/evolve/propose.ts";
import { evolvedCount, getProposal, listProposals } from "../lib/evolve/proposals_store.ts";
import { openHive } from "../lib/hive/open.ts";
import { harnessOfRun, listRuns } from "../lib/hive/runs.ts";
import { listSpecVersions } from "../lib/hive/spec_versions.ts";
import { specVersion } from "../lib/spec/version.ts";
import { harnessStats } from "../lib/hive/stats.ts";
import { readJsonObject } from "../lib/http/body.ts";
import { errorResponse, okResponse } from "../lib/http/response.ts";
import { type SseFrame, sseResponse } from "../lib/http/sse.ts";
import { foldContext } from "../lib/journal/fold.ts";
import { findRun, getTrace, readJournalBytes } from "../lib/journal/trace.ts";
import { wholeNumber } from "../lib/whole_number.ts";
import { stopLiveRun } from "../lib/runner/stop_run.ts";
import { activeRun } from "../lib/runner/active_runs.ts";
import { runFrames } from "../lib/runner/frames.ts";
import { runEventFrames } from "../lib/runner/run_events.ts";
import { startRun } from "../lib/runner/start_run.ts";
import { builtinCatalog } from "../lib/spec/builtins.ts";
import { frozenRoots } from "../lib/spec/frozen.ts";
import { checkHarnessCached } from "../lib/spec/spec_cache.ts";
import { validateHarness } from "../lib/spec/validate.ts";
import { trustedEntryFor, trustFolder } from "../lib/trust/store.ts";
import { SECRET_HEADER, secretMatches } from "../lib/workbench/access.ts";
import {
  catalogTree,
  COPILOT_ID,
  discoverHarnesses,
  duplicateFolders,
  harnessDirOf,
  harnessRefOf,
  registerHarnessDir,
} from "../lib/workbench/catalog.ts";
import { createRescan } from "../lib/workbench/rescan.ts";
import { checkSelection } from "../lib/workbench/selection.ts";
import { pendingTurn, startChatTurn } from "../lib/workbench/chat.ts";
import {
  createConversation,
  deleteConversation,
  getConversation,
  listArtifacts,
  listConversations,
  listMessages,
  updateConversation,
} from "../lib/workbench/conversations.ts";
import {
  type CopilotModel,
  resolveCopilotModel,
  setupCopilot,
} from "../lib/workbench/copilot/setup.ts";
import { COPILOT_TOOL_NAMES } from "../lib/workbench/copilot/tools.ts";
import { openWorkbenchDb } from "../lib/workbench/db.ts";
import { forgetMemory, getMemory, listMemories } from "../lib/workbench/memories.ts";
import { initHarness } from "../lib/construct/init_harness.ts";

/** Options of {@link createWorkbenchApi}. */
export interface WorkbenchApiOptions {
  /** The per-launch secret the launcher sends; null disables the check (tests of the API alone). */
  secret: string | null;
  /** Where new harnesses are created. */
  harnessesDir: string;
  /** Extra harness folders (`--dir`). */
  dirs?: string[];
  /** Trees to scan (`./harnesses` is always scanned). */
  scanDirs?: string[];
  /** The copilot's model (default: from the environment). */
  copilotModel?: CopilotModel | undefined;
  maxBodyBytes?: number;
}

/** The API, ready to serve. */
export interface WorkbenchApi {
  fetch: (request: Request) => Promise<Response>;
  /** The copilot's model, when one is configured. */
  copilotModel: CopilotModel | undefined;
}

/** Workbench edits freeze the safety roots (like proposals): the Spec tab marks them and refuses them. */
const EDIT = { actor: "workbench", caller: "proposal" } as const;
/**
 * A person's edit of a frozen field, confirmed in the page (`confirm_frozen: true`): the local user's
 * CLI in a browser (CONTRACT.md "Frozen over HTTP, added"). The copilot never edits through this API.
 */
const CONFIRMED_EDIT = { actor: "workbench", caller: "cli" } as const;
const editPolicy = (
  b: Record<string, unknown>,
) => (b.confirm_frozen === true ? CONFIRMED_EDIT : EDIT);

/**
 * Builds the workbench API: sets up the copilot (validated and trusted), opens the databases and
 * discovers harnesses.
 *
 * @param options Secret, folders, copilot model.
 * @returns The request handler.
 */
export async function createWorkbenchApi(options: WorkbenchApiOptions): Promise<WorkbenchApi> {
  const copilot = await setupCopilot();
  const copilotModel = "copilotModel" in options ? options.copilotModel : resolveCopilotModel();
  const hive = openHive();
  const db = openWorkbenchDb();
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const scanRoots = [options.harnessesDir, ...(options.scanDirs ?? [])];
  await discoverHarnesses(hive, options.dirs ?? [], scanRoots);
  // Folders added or removed while the workbench runs are found by a cheap rescan, at most every
  // few seconds when the catalog is read, or at once when asked (the rail's refresh).
  const rescan = createRescan(() => discoverHarnesses(hive, [], scanRoots), 3000);
  const chatEnv = { hive, db, copilot, model: copilotModel, harnessesDir: options.harnessesDir };
  const app = new Hono();

  app.use("*", async (c, next) => {
    if (options.secret !== null && !secretMatches(c.req.header(SECRET_HEADER), options.secret)) {
      throw new FrameworkError(
        "forbidden",
        "This port only answers the workbench launcher; open the workbench URL instead",
      );
    }
    await next();
  });

  const body = (c: { req: { raw: Request } }, allowEmpty = false) =>
    readJsonObject(c.req.raw, maxBody, { allowEmpty });

  // --- the workbench itself
  app.get("/api/health", () =>
    okResponse({
      ok: true,
      copilot: copilotModel
        ? {
          model: `${copilotModel.model.provider}:${copilotModel.model.name ?? ""}`,
          source: copilotModel.source,
        }
        : null,
      harnesses_dir: options.harnessesDir,
    }));
  app.get(
    "/api/catalog/builtins",
    () => okResponse({ builtins: builtinCatalog(), copilot_tools: COPILOT_TOOL_NAMES }),
  );

  // --- conversations and chat
  app.get("/api/conversations", () => okResponse({ conversations: listConversations(db) }));
  app.post("/api/conversations", async (c) => {
    const b = await body(c, true);
    if (typeof b.harness_id === "string") checkSelection(hive, { harness_id: b.harness_id });
    return okResponse(
      createConversation(db, {
        ...(typeof b.title === "string" ? { title: b.title } : {}),
        ...(typeof b.harness_id === "string" ? { selected_harness_id: b.harness_id } : {}),
      }),
      201,
    );
  });
  app.get("/api/conversations/:id", (c) => {
    const conversation = getConversation(db, c.req.param("id"));
    return okResponse({
      conversation,
      messages: listMessages(db, conversation.id),
      artifacts: listArtifacts(db, conversation.id),
      pending_run_id: pendingTurn(conversation.id),
    });
  });
  app.patch("/api/conversations/:id", async (c) => {
    const b = await body(c);
    const patch: Parameters<typeof updateConversation>[2] = {};
    if (b.title !== undefined) patch.title = b.title as string;
    for (const key of ["selected_harness_id", "selected_run_id"] as const) {
      if (b[key] !== undefined) {
        if (b[key] !== null && typeof b[key] !== "string") {
          throw badInput(`${key} must be a string or null`);
        }
        patch[key] = b[key] as string | null;
      }
    }
    const current = getConversation(db, c.req.param("id"));
    checkSelection(hive, {
      harness_id: patch.selected_harness_id !== undefined
        ? patch.selected_harness_id
        : current.selected_harness_id,
      run_id: patch.selected_run_id ?? null,
    });
    return okResponse(updateConversation(db, current.id, patch));
  });
  app.delete("/api/conversations/:id", (c) => {
    deleteConversation(db, c.req.param("id"));
    return okResponse({ deleted: c.req.param("id") });
  });
  app.post("/api/conversations/:id/messages", async (c) => {
    const b = await body(c);
    const selection = b.selection as
      | { harness_id?: string | null; run_id?: string | null }
      | undefined;
    if (selection !== undefined && (typeof selection !== "object" || selection === null)) {
      throw badInput("selection must be an object");
    }
    if (selection) checkSelection(hive, selection);
    const turn = await startChatTurn(chatEnv, c.req.param("id"), {
      message: b.message as string,
      ...(selection ? { selection } : {}),
    });
    return sseResponse((async function* (): AsyncGenerator<SseFrame> {
      for await (const f of turn.frames) {
        const { frame, ...data } = f;
        yield { event: frame, data, ...(frame === "trace" ? { id: f.seq } : {}) };
      }
    })());
  });

  // --- harnesses
  const catalog = async () =>
    okResponse({ harnesses: await catalogTree(hive), duplicates: duplicateFolders(hive) });
  app.get("/api/harnesses", async () => {
    await rescan.ifStale();
    return await catalog();
  });
  app.post("/api/harnesses/rescan", async (c) => {
    await c.req.raw.body?.cancel();
    await rescan.now();
    return await catalog();
  });
  app.post("/api/harnesses", async (c) => {
    const b = await body(c);
    if (typeof b.id !== "string") throw badInput('Send {"id": "my-harness", "template"?: "blank"}');
    const dir = `${options.harnessesDir}/${b.id}`;
    const made = await initHarness(dir, {
      id: b.id,
      template: typeof b.template === "string" ? b.template : "blank",
      ...(typeof b.name === "string" ? { name: b.name } : {}),
      actor: "workbench",
    });
    await registerHarnessDir(hive, made.dir);
    return okResponse(made, 201);
  });
  app.get("/api/harnesses/:id", async (c) => {
    const id = c.req.param("id");
    const dir = harnessDirOf(hive, id);
    const { parsed } = await checkHarnessCached(dir);
    return okResponse({
      id,
      dir,
      spec: parsed.value ?? null,
      spec_version: parsed.spec ? specVersion(parsed.spec) : null,
      valid: !!parsed.spec && !parsed.issues.some((i) => i.severity === "error"),
      trusted: !!(await trustedEntryFor(dir)),
      stats: harnessStats(hive, { id, dir }),
      evolved: evolvedCount(hive, { id, dir }),
    });
  });
  app.get("/api/harnesses/:id/spec", async (c) => {
    const id = c.req.param("id");
    const { parsed } = await checkHarnessCached(harnessDirOf(hive, id));
    return okResponse({
      id,
      text: parsed.text,
      issues: parsed.issues,
      frozen: frozenRoots(EDIT.caller),
    });
  });
  app.put("/api/harnesses/:id/spec", async (c) => {
    const b = await body(c);
    if (typeof b.text !== "string") throw badInput('Send {"text": "<the whole harness.yaml>"}');
    const r = await replaceSpecText(harnessDirOf(hive, c.req.param("id")), b.text, editPolicy(b));
    return okResponse({ spec_version: r.spec_version, changed: r.changed, valid: r.valid });
  });
  app.post(
    "/api/harnesses/:id/validate",
    async (c) => okResponse(await validateHarness(harnessDirOf(hive, c.req.param("id")))),
  );
  app.post("/api/harnesses/:id/set", async (c) => {
    const b = await body(c);
    const { path, value } = setRequest(b);
    const r = await setField(harnessDirOf(hive, c.req.param("id")), path, value, editPolicy(b));
    return okResponse({
      path: r.path,
      old: r.old,
      new: r.new,
      spec_version: r.spec_version,
      changed: r.changed,
    });
  });
  app.post("/api/harnesses/:id/add/:kind", async (c) => {
    const r = await addItem(
      harnessDirOf(hive, c.req.param("id")),
      c.req.param("kind"),
      await body(c),
      EDIT,
    );
    return okResponse({ kind: r.kind, name: r.name, spec_version: r.spec_version });
  });
  app.post("/api/harnesses/:id/remove", async (c) => {
    const b = await body(c);
    const r = await removeItem(
      harnessDirOf(hive, c.req.param("id")),
      removeRequest(b),
      editPolicy(b),
    );
    return okResponse({ removed: r.removed, spec_version: r.spec_version });
  });
  app.post("/api/harnesses/:id/trust", async (c) => {
    // An explicit person's action in the UI: the copilot has no such tool.
    const r = await trustFolder(harnessDirOf(hive, c.req.param("id")));
    return okResponse({ trusted: r.path, added: r.added });
  });
  app.get("/api/harnesses/:id/versions", (c) => {
    return okResponse({
      versions: listSpecVersions(
        hive,
        harnessRefOf(hive, c.req.param("id")),
        wholeNumber(c.req.query("limit"), { name: "limit", min: 1, max: 1000, fallback: 50 }),
      ),
    });
  });

  // --- runs
  app.get("/api/harnesses/:id/runs", (c) => {
    const harness = harnessRefOf(hive, c.req.param("id"));
    const status = c.req.query("status");
    const limit = wholeNumber(c.req.query("limit"), {
      name: "limit",
      min: 1,
      max: 1000,
      fallback: 50,
    });
    const before = c.req.query("before");
    return okResponse({
      runs: listRuns(hive, harness, {
        ...(status ? { status } : {}),
        limit,
        ...(before ? { before } : {}),
      }),
    });
  });
  app.get("/api/harnesses/:id/stats", (c) => {
    return okResponse(harnessStats(hive, harnessRefOf(hive, c.req.param("id"))));
  });
  app.post("/api/harnesses/:id/runs", async (c) => {
    const b = await body(c);
    const run = await startRun(harnessDirOf(hive, c.req.param("id")), {
      ...(b.input !== undefined ? { input: b.input as string } : {}),
      ...(b.input_file !== undefined ? { input_file: b.input_file as string } : {}),
    });
    if (c.req.query("stream") === "true") {
      return sseResponse((async function* (): AsyncGenerator<SseFrame> {
        for await (const f of runFrames(run)) {
          const { frame, ...data } = f;
          yield { event: frame, data, ...(f.frame === "trace" ? { id: f.seq } : {}) };
        }
      })());
    }
    return okResponse(await run.result);
  });
  /** A target harness's run (the copilot's own runs are not shown), or `not_found`. */
  const targetRun = (id: string) => {
    const row = findRun(hive, null, id);
    if (row.harness_id === COPILOT_ID) {
      throw new FrameworkError("not_found", `Unknown run ${JSON.stringify(id)}`);
    }
    return row;
  };
  app.get("/api/runs/:id", async (c) => {
    const row = targetRun(c.req.param("id"));
    const limit = wholeNumber(c.req.query("limit"), { name: "limit", min: 0, fallback: undefined });
    const { run, events, ...rest } = await getTrace(hive, harnessOfRun(row), row.run_id);
    return okResponse({
      ...rest,
      events: limit === undefined ? events : events.slice(0, limit),
      event_count: events.length,
      run,
      live: !!activeRun(row.run_id),
    });
  });
  app.post("/api/runs/:id/stop", async (c) => {
    const result = await stopLiveRun(hive, null, c.req.param("id"));
    return okResponse({ stopped: true, result });
  });
  app.get("/api/runs/:id/context", async (c) => {
    const row = targetRun(c.req.param("id"));
    const seq = wholeNumber(c.req.query("seq"), {
      name: "seq (a model call's)",
      min: 1,
      fallback: 0,
    });
    if (!seq) throw badInput("Send ?seq= with the seq of a model call");
    const trace = await getTrace(hive, harnessOfRun(row), row.run_id);
    return okResponse(foldContext(trace.events, seq));
  });
  app.get("/api/runs/:id/export", async (c) => {
    const row = targetRun(c.req.param("id"));
    if (row.status === "running") {
      throw new FrameworkError(
        "conflict",
        "The run is still going; export it when it has finished",
      );
    }
    const bytes = await readJournalBytes(row);
    return new Response(bytes as BodyInit, {
      headers: {
        "content-type": "application/x-ndjson",
        "content-disposition": `attachment; filename="${row.run_id}.jsonl"`,
        "cache-control": "no-store",
      },
    });
  });
  app.get("/api/runs/:id/events", (c) => {
    const row = targetRun(c.req.param("id"));
    const raw = c.req.header("last-event-id") ?? c.req.query("last_event_id") ?? "0";
    const frames = runEventFrames(
      hive,
      harnessOfRun(row),
      row.run_id,
      /^\d+$/.test(raw) ? Number(raw) : 0,
    );
    return sseResponse((async function* (): AsyncGenerator<SseFrame> {
      for await (const f of frames) {
        const { frame, ...data } = f;
        yield { event: frame, data, ...(f.frame === "trace" ? { id: f.seq } : {}) };
      }
    })());
  });

  // --- proposals
  app.get("/api/harnesses/:id/proposals", (c) => {
    const harness = harnessRefOf(hive, c.req.param("id"));
    // An empty ?status= is every status.
    return okResponse({
      proposals: listProposals(hive, harness, c.req.query("status") || undefined),
    });
  });
  app.post("/api/harnesses/:id/proposals", async (c) => {
    const b = await body(c, true);
    const p = await proposeImprovement(harnessDirOf(hive, c.req.param("id")), {
      trigger: "workbench",
      caller: "proposal",
      ...(typeof b.objective === "string" && b.objective ? { objective: b.objective } : {}),
    });
    return okResponse(p, 201);
  });
  app.get(
    "/api/harnesses/:id/proposals/:pid",
    (c) => okResponse(getProposal(hive, harnessRefOf(hive, c.req.param("id")), c.req.param("pid"))),
  );
  app.post("/api/harnesses/:id/proposals/:pid/apply", async (c) => {
    const b = await body(c);
    if (b.approve_code !== undefined && !Array.isArray(b.approve_code)) {
      throw badInput("approve_code must be a list");
    }
    return okResponse(
      await applyProposal(harnessDirOf(hive, c.req.param("id")), c.req.param("pid"), {
        approve_code: (b.approve_code as string[] | undefined) ?? [],
        apply_yaml: b.apply_yaml === true,
      }, { caller: "proposal" }),
    );
  });
  app.post("/api/harnesses/:id/proposals/:pid/reject", async (c) => {
    const b = await body(c);
    return okResponse(
      await rejectProposal(
        harnessDirOf(hive, c.req.param("id")),
        c.req.param("pid"),
        b.reason as string,
        { caller: "proposal" },
      ),
    );
  });

  // --- memories
  app.get("/api/memories", (c) => {
    const scope = c.req.query("scope");
    if (scope !== undefined && scope !== "global" && scope !== "harness") {
      throw badInput('scope is "global" or "harness"');
    }
    const harness = c.req.query("harness_id");
    const query = c.req.query("q");
    return okResponse({
      memories: listMemories(db, {
        ...(scope ? { scope: scope as "global" | "harness" } : {}),
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

  app.notFound((c) =>
    errorResponse(
      new FrameworkError("not_found", `No route ${c.req.method} ${new URL(c.req.url).pathname}`),
    )
  );
  app.onError((err) =>
    errorResponse(
      err instanceof URIError ? badInput("The request path is not valid percent-encoding") : err,
    )
  );

  return { fetch: withCheckedHost(app.fetch), copilotModel };
}
