/**
 * Controls of a live run (docs/workbench-api.md, Live runs): steering messages, addressable and
 * editable until the loop takes them, model and playbook changes, and stop. Every control answers at
 * once; the run applies it at its next turn boundary. The person in the page acts as `workbench`.
 *
 * The same routes serve two addresses: `/api/runs/{id}/…` finds runs as `GET /api/runs/{id}` does
 * (`targetRun`: the copilot's own runs are unknown there, 404), and `/api/conversations/{id}/turn/…`
 * reaches only that conversation's copilot turn in flight (the chat's composer steers and stops it).
 *
 * @module
 */

import { type Context, Hono } from "hono";
import { okResponse } from "../../lib/http/response.ts";
import { badInput, notFound } from "../../lib/errors.ts";
import {
  PLAYBOOK_REQUEST,
  readRequest,
  STEER_EDIT_REQUEST,
  STEER_REQUEST,
  STOP_REQUEST,
} from "../../lib/requests.ts";
import {
  changeRunModel,
  MODEL_CHANGE_REQUEST,
  runControls,
  type RunFinder,
  steeringMessages,
  stopRun,
} from "../../lib/runs/controls.ts";
import { conversationTurn } from "../../lib/workbench/chat.ts";
import { targetRun } from "../../lib/workbench/runs.ts";
import type { WorkbenchApp, WorkbenchContext } from "./context.ts";

/** Who the workbench's controls are from. */
const BY = "workbench";

/** Which run a request addresses, and how its controls find it. */
type Addressed = (c: Context) => { runId: string; find: RunFinder };

/**
 * Steering messages and stop under a prefix whose `:id` names the run, or the conversation.
 *
 * @param ctx The API's context.
 * @param app Where to mount them.
 * @param prefix `/api/runs/:id` or `/api/conversations/:id/turn`.
 * @param addressed The run a request addresses.
 */
function steerAndStop(
  ctx: WorkbenchContext,
  app: Hono,
  prefix: string,
  addressed: Addressed,
): void {
  const { hive } = ctx;
  const controlsOf = (c: Context) => {
    const { runId, find } = addressed(c);
    return runControls(hive, runId, find);
  };
  const messageOf = async (c: Context) => {
    const { runId, find } = addressed(c);
    const id = c.req.param("message_id")!;
    const found = (await steeringMessages(hive, runId, find)).find((m) => m.id === id);
    if (!found) throw notFound(`No message ${JSON.stringify(id)} in run ${runId}`);
    return found;
  };

  app.post(`${prefix}/messages`, async (c) => {
    const { text } = readRequest(STEER_REQUEST, await ctx.body(c));
    return okResponse({ message: controlsOf(c).steer(text) }, 201);
  });
  app.get(`${prefix}/messages`, async (c) => {
    const { runId, find } = addressed(c);
    return okResponse({ messages: await steeringMessages(hive, runId, find) });
  });
  app.patch(`${prefix}/messages`, async (c) => {
    const { id, text } = readRequest(STEER_EDIT_REQUEST, await ctx.body(c));
    return okResponse({ message: controlsOf(c).edit(id, text) });
  });
  app.delete(`${prefix}/messages`, (c) => {
    const id = c.req.query("id");
    if (!id) throw badInput(`Name the message: DELETE ${prefix}/messages?id=<message id>`);
    controlsOf(c).remove(id);
    return okResponse({ deleted: true });
  });
  app.get(
    `${prefix}/messages/:message_id`,
    async (c) => okResponse({ message: await messageOf(c) }),
  );
  app.patch(`${prefix}/messages/:message_id`, async (c) => {
    const { text } = readRequest(STEER_REQUEST, await ctx.body(c));
    return okResponse({ message: controlsOf(c).edit(c.req.param("message_id")!, text) });
  });
  app.delete(`${prefix}/messages/:message_id`, (c) => {
    controlsOf(c).remove(c.req.param("message_id")!);
    return okResponse({ deleted: true });
  });
  app.post(`${prefix}/stop`, async (c) => {
    const { now } = readRequest(STOP_REQUEST, await ctx.body(c, true));
    const { runId, find } = addressed(c);
    return okResponse({ control: stopRun(hive, runId, { now, by: BY }, find) });
  });
}

/**
 * The live-run routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function liveRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { hive } = ctx;
  steerAndStop(ctx, app, "/api/runs/:id", (c) => ({ runId: c.req.param("id")!, find: targetRun }));
  steerAndStop(
    ctx,
    app,
    "/api/conversations/:id/turn",
    (c) => conversationTurn(c.req.param("id")!),
  );

  app.post("/api/runs/:id/model", async (c) => {
    const { model } = readRequest(MODEL_CHANGE_REQUEST, await ctx.body(c));
    return okResponse({ control: changeRunModel(hive, c.req.param("id"), model, BY, targetRun) });
  });
  app.post("/api/runs/:id/playbook", async (c) => {
    const { name } = readRequest(PLAYBOOK_REQUEST, await ctx.body(c));
    const controls = runControls(hive, c.req.param("id"), targetRun);
    return okResponse({ control: controls.switchPlaybook(name, BY) });
  });
  return app;
}
