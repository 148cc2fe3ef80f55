/**
 * Controls of a live run (docs/workbench-api.md, Live runs): steering messages, addressable and
 * editable until the loop takes them, model and playbook changes, and stop. Every control answers
 * at once; the run applies it at its next turn boundary. The person in the page acts as
 * `workbench`. Runs are found as `GET /api/runs/{id}` finds them (`targetRun`): the copilot's own
 * runs are unknown here too (404).
 *
 * @module
 */

import { Hono } from "hono";
import { okResponse } from "../../lib/http/response.ts";
import { badInput, notFound } from "../../lib/errors.ts";
import {
  MODEL_CHANGE_REQUEST,
  PLAYBOOK_REQUEST,
  readRequest,
  STEER_EDIT_REQUEST,
  STEER_REQUEST,
  STOP_REQUEST,
} from "../../lib/requests.ts";
import { changeRunModel, runControls, steeringMessages, stopRun } from "../../lib/runs/controls.ts";
import { targetRun } from "../../lib/workbench/runs.ts";
import type { WorkbenchApp, WorkbenchContext } from "./context.ts";

/** Who the workbench's controls are from. */
const BY = "workbench";

/**
 * The live-run routes.
 *
 * @param ctx The API's context.
 * @returns Their app.
 */
export function liveRoutes(ctx: WorkbenchContext): WorkbenchApp {
  const app = new Hono();
  const { hive } = ctx;
  const controlsOf = (runId: string) => runControls(hive, runId, targetRun);
  const messageOf = async (runId: string, messageId: string) => {
    const found = (await steeringMessages(hive, runId, targetRun)).find((m) => m.id === messageId);
    if (!found) throw notFound(`No message ${JSON.stringify(messageId)} in run ${runId}`);
    return found;
  };

  app.post("/api/runs/:id/messages", async (c) => {
    const { text } = readRequest(STEER_REQUEST, await ctx.body(c));
    return okResponse({ message: controlsOf(c.req.param("id")).steer(text) }, 201);
  });
  app.get(
    "/api/runs/:id/messages",
    async (c) =>
      okResponse({ messages: await steeringMessages(hive, c.req.param("id"), targetRun) }),
  );
  app.patch("/api/runs/:id/messages", async (c) => {
    const { id, text } = readRequest(STEER_EDIT_REQUEST, await ctx.body(c));
    return okResponse({ message: controlsOf(c.req.param("id")).edit(id, text) });
  });
  app.delete("/api/runs/:id/messages", (c) => {
    const id = c.req.query("id");
    if (!id) throw badInput("Name the message: DELETE /api/runs/{id}/messages?id=<message id>");
    controlsOf(c.req.param("id")).remove(id);
    return okResponse({ deleted: true });
  });
  app.get(
    "/api/runs/:id/messages/:message_id",
    async (c) =>
      okResponse({ message: await messageOf(c.req.param("id"), c.req.param("message_id")) }),
  );
  app.patch("/api/runs/:id/messages/:message_id", async (c) => {
    const { text } = readRequest(STEER_REQUEST, await ctx.body(c));
    const controls = controlsOf(c.req.param("id"));
    return okResponse({ message: controls.edit(c.req.param("message_id"), text) });
  });
  app.delete("/api/runs/:id/messages/:message_id", (c) => {
    controlsOf(c.req.param("id")).remove(c.req.param("message_id"));
    return okResponse({ deleted: true });
  });

  app.post("/api/runs/:id/model", async (c) => {
    const { model } = readRequest(MODEL_CHANGE_REQUEST, await ctx.body(c));
    return okResponse({ control: changeRunModel(hive, c.req.param("id"), model, BY, targetRun) });
  });
  app.post("/api/runs/:id/playbook", async (c) => {
    const { name } = readRequest(PLAYBOOK_REQUEST, await ctx.body(c));
    return okResponse({ control: controlsOf(c.req.param("id")).switchPlaybook(name, BY) });
  });
  app.post("/api/runs/:id/stop", async (c) => {
    const { now } = readRequest(STOP_REQUEST, await ctx.body(c, true));
    return okResponse({ control: stopRun(hive, c.req.param("id"), { now, by: BY }, targetRun) });
  });
  return app;
}
