/**
 * The control plane's HTTP surface: one harness over bearer-authenticated HTTP. Each route translates
 * a request into one library call and its result into the ok wrapper; authentication, capacity,
 * frozen roots and harness binding are decided in `lib/`.
 *
 * @example Serve a harness
 * ```ts
 * const plane = await createControlPlane({ harnessDir: "./support-bot", storePath });
 * Deno.serve({ hostname: "127.0.0.1", port: 8420 }, plane.fetch);
 * ```
 *
 * @module
 */

import { withCheckedHost } from "../lib/http/host.ts";
import { type Context, Hono } from "hono";
import { addItem } from "../lib/construct/add_item.ts";
import { removeRequest, setRequest } from "../lib/construct/edit_requests.ts";
import { removeItem } from "../lib/construct/remove_item.ts";
import { setField } from "../lib/construct/set_field.ts";
import { badInput, FrameworkError, methodNotAllowed } from "../lib/errors.ts";
import type { HarnessRef } from "../lib/hive/harnesses.ts";
import { evolvedCount } from "../lib/evolve/proposals_store.ts";
import { openHive } from "../lib/hive/open.ts";
import { harnessStats } from "../lib/hive/stats.ts";
import { readJsonObject } from "../lib/http/body.ts";
import { errorResponse, okResponse } from "../lib/http/response.ts";
import { type SseFrame, sseResponse } from "../lib/http/sse.ts";
import { authenticate, type Principal } from "../lib/keys/authenticate.ts";
import { getTrace } from "../lib/journal/trace.ts";
import { activeRuns } from "../lib/runner/active_runs.ts";
import { type RunFrame, runFrames } from "../lib/runner/frames.ts";
import { runEventFrames } from "../lib/runner/run_events.ts";
import { createRunGate } from "../lib/runner/run_gate.ts";
import { launchRun, prepareRun, type RunHandle } from "../lib/runner/start_run.ts";
import { harnessRef } from "../lib/spec/load.ts";
import { loadSpecCached } from "../lib/spec/spec_cache.ts";
import { validateHarness } from "../lib/spec/validate.ts";

/** Options of {@link createControlPlane}. */
export interface ControlPlaneOptions {
  /** The harness folder (absolute, symlinks resolved, already trusted). */
  harnessDir: string;
  /** The authorized-key store, read on every request. */
  storePath: string;
  maxConcurrentRuns?: number;
  maxQueuedRuns?: number;
  /** Request body limit in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Where request lines go (default stderr); null turns logging off. */
  log?: ((line: string) => void) | null;
  /** Evolution routes, mounted by the evolution module. */
  extend?: (app: ControlPlaneApp, ctx: ControlPlaneContext) => void;
}

/** What routes can use. */
export interface ControlPlaneContext {
  harnessDir: string;
  harnessId: string;
  /** The served harness as the hive binds it (id and folder). */
  harness: HarnessRef;
  maxBodyBytes: number;
  /** Authenticates the request for a scope (401/403) and remembers the key for the request log. */
  authorize(c: Context<Env>, scope: string | null): Promise<Principal>;
}

/** Per-request variables. */
export type Env = { Variables: { principal?: Principal; keyId?: string } };

/** The Hono app of the control plane. */
export type ControlPlaneApp = Hono<Env>;

/** A control plane ready to serve. */
export interface ControlPlane {
  /** The request handler for `Deno.serve`. */
  fetch: (request: Request) => Promise<Response>;
  harnessId: string;
  /** Stops runs that are still going (after a bounded grace period) and releases resources. */
  close(graceMs?: number): Promise<void>;
}

/** Routes and the methods they accept (for 405 answers). */
const ROUTES: [string, string[]][] = [
  ["/health", ["GET"]],
  ["/run", ["POST"]],
  ["/runs/:run_id/events", ["GET"]],
  ["/stats", ["GET"]],
  ["/trace/:run_id", ["GET"]],
  ["/validate", ["POST"]],
  ["/set", ["POST"]],
  ["/add/:kind", ["POST"]],
  ["/remove", ["POST"]],
  ["/evolve/propose", ["POST"]],
  ["/proposals", ["GET"]],
  ["/proposals/:id", ["GET"]],
  ["/proposals/:id/apply", ["POST"]],
  ["/proposals/:id/reject", ["POST"]],
];

function toSse(frame: RunFrame): SseFrame {
  const { frame: event, ...data } = frame;
  if (frame.frame === "trace") {
    const { run_id: _r, ...trace } = data as Record<string, unknown>;
    return { event, data: trace, id: frame.seq };
  }
  return { event, data };
}

/**
 * Builds the control plane of one harness.
 *
 * @param options The harness, the key store, capacity and limits.
 * @returns The handler and a closer.
 */
export async function createControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const dir = options.harnessDir;
  const harnessId = (await loadSpecCached(dir)).spec.id;
  const harness: HarnessRef = { id: harnessId, dir };
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const gate = createRunGate({
    maxConcurrent: options.maxConcurrentRuns ?? 1,
    maxQueued: options.maxQueuedRuns ?? 4,
  });
  const stopAll = new AbortController();
  const log = options.log === undefined ? (line: string) => console.error(line) : options.log;
  const app: ControlPlaneApp = new Hono<Env>();

  const ctx: ControlPlaneContext = {
    harnessDir: dir,
    harnessId,
    harness,
    maxBodyBytes,
    async authorize(c, scope) {
      try {
        const principal = await authenticate(c.req.raw, options.storePath, scope, {
          audience: harnessId,
        });
        c.set("keyId", principal.key_id);
        c.set("principal", principal);
        return principal;
      } catch (err) {
        // A scope refusal comes from a verified key: the log names it.
        if (err instanceof FrameworkError && typeof err.details.key_id === "string") {
          c.set("keyId", err.details.key_id);
        }
        throw err;
      }
    },
  };
  const actor = (p: Principal) => ({ actor: `http:${p.key_id}`, caller: "http" as const });

  app.use("*", async (c, next) => {
    const t0 = performance.now();
    await next();
    if (log) {
      const key = c.get("keyId") ?? "-";
      log(
        `${new Date().toISOString()} ${c.req.method} ${
          new URL(c.req.url).pathname
        } ${c.res.status} ${Math.round(performance.now() - t0)}ms key=${key}`,
      );
    }
  });

  app.get("/health", async () => {
    const loaded = await loadSpecCached(dir);
    return okResponse({
      id: loaded.spec.id,
      name: loaded.spec.name ?? loaded.spec.id,
      spec_version: loaded.version,
      evolved: evolvedCount(openHive(), harnessRef(loaded)),
    });
  });

  app.post("/run", async (c) => {
    await ctx.authorize(c, "run");
    const body = await readJsonObject(c.req.raw, maxBodyBytes);
    const input: { input?: string; input_file?: string } = {};
    for (const key of Object.keys(body)) {
      if (key !== "input" && key !== "input_file") {
        throw badInput(`Unknown field ${JSON.stringify(key)}: send {input, input_file}`);
      }
    }
    if (body.input !== undefined) input.input = body.input as string;
    if (body.input_file !== undefined) input.input_file = body.input_file as string;
    const prepared = await prepareRun(dir, input, {
      trustChecked: true,
      signal: stopAll.signal,
      spec: await loadSpecCached(dir),
    });
    const admission = gate.admit();
    // The run starts when a slot is free, whatever happens to this request afterwards.
    const started: Promise<RunHandle> = admission.ready.then((release) => {
      try {
        const run = launchRun(prepared);
        run.result.finally(release);
        return run;
      } catch (err) {
        release();
        throw err;
      }
    });
    if (c.req.query("stream") === "true") {
      const frames = async function* (): AsyncGenerator<SseFrame> {
        yield {
          event: "run_accepted",
          data: { run_id: prepared.run_id, harness_id: harnessId, queued: admission.queued },
        };
        const run = await started;
        for await (const frame of runFrames(run)) {
          if (frame.frame !== "run_accepted") yield toSse(frame);
        }
      };
      return sseResponse(frames());
    }
    const run = await started;
    return okResponse(await run.result);
  });

  app.get("/runs/:run_id/events", async (c) => {
    await ctx.authorize(c, "read");
    const runId = c.req.param("run_id");
    const raw = c.req.header("last-event-id") ?? c.req.query("last_event_id") ?? "0";
    const after = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : 0;
    const db = openHive();
    const frames = runEventFrames(db, harness, runId, after);
    const first = await frames.next(); // a 404 is answered as JSON, before the stream starts
    return sseResponse((async function* () {
      if (!first.done) yield toSse(first.value);
      for await (const f of frames) yield toSse(f);
    })());
  });

  app.get("/stats", async (c) => {
    await ctx.authorize(c, "read");
    return okResponse(harnessStats(openHive(), harness));
  });

  app.get("/trace/:run_id", async (c) => {
    await ctx.authorize(c, "read");
    const { run: _run, ...trace } = await getTrace(openHive(), harness, c.req.param("run_id"));
    return okResponse(trace);
  });

  app.post("/validate", async (c) => {
    await ctx.authorize(c, "read");
    await c.req.raw.body?.cancel();
    const { valid, issues } = await validateHarness(dir);
    return okResponse({ valid, issues });
  });

  app.post("/set", async (c) => {
    const who = await ctx.authorize(c, "mutate");
    const { path, value } = setRequest(await readJsonObject(c.req.raw, maxBodyBytes));
    const r = await setField(dir, path, value, actor(who));
    return okResponse({ path: r.path, old: r.old, new: r.new, spec_version: r.spec_version });
  });

  app.post("/add/:kind", async (c) => {
    const who = await ctx.authorize(c, "mutate");
    const kind = c.req.param("kind");
    const body = await readJsonObject(c.req.raw, maxBodyBytes);
    const r = await addItem(dir, kind, body, actor(who));
    return okResponse({ kind: r.kind, name: r.name, spec_version: r.spec_version });
  });

  app.post("/remove", async (c) => {
    const who = await ctx.authorize(c, "mutate");
    const target = removeRequest(await readJsonObject(c.req.raw, maxBodyBytes));
    const r = await removeItem(dir, target, actor(who));
    return okResponse({ removed: r.removed, spec_version: r.spec_version });
  });

  options.extend?.(app, ctx);

  // A known path with another method is 405; anything else is 404.
  for (const [path, methods] of ROUTES) {
    app.all(path, (c) => {
      if (methods.includes(c.req.method)) {
        throw new FrameworkError(
          "not_found",
          `Not available: ${c.req.method} ${new URL(c.req.url).pathname}`,
        );
      }
      throw methodNotAllowed(c.req.method, methods);
    });
  }
  app.notFound((c) =>
    errorResponse(
      new FrameworkError("not_found", `No route ${c.req.method} ${new URL(c.req.url).pathname}`),
    )
  );
  app.onError((err) => {
    if (err instanceof URIError) {
      return errorResponse(badInput("The request path is not valid percent-encoding"));
    }
    return errorResponse(err);
  });

  return {
    fetch: withCheckedHost(app.fetch),
    harnessId,
    async close(graceMs = 10_000) {
      const runs = activeRuns().filter((r) => r.harness_id === harnessId);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise((r) => (timer = setTimeout(r, graceMs)));
      await Promise.race([Promise.allSettled(runs.map((r) => r.result)), grace]);
      clearTimeout(timer);
      stopAll.abort(new Error("The control plane is shutting down"));
      await Promise.allSettled(runs.map((r) => r.result));
    },
  };
}
