/**
 * The control plane's OpenAI-compatible endpoints under `/v1/` (docs/control-plane.md,
 * OpenAI-compatible endpoints): `GET /v1/models`, `POST /v1/chat/completions`, `POST /v1/responses`
 * and `GET /v1/responses/{id}`, with the same bearer tokens and scopes as every route (`run` to
 * create, `read` to list and get), and every error under `/v1/` — a bad token, a full queue, an
 * unknown path — in OpenAI's shape. Each route reads its body with its schema and calls `lib/openai/`.
 *
 * @module
 */

import { Hono } from "hono";
import { openHive } from "../../lib/hive/open.ts";
import { errorResponse, jsonResponse } from "../../lib/http/response.ts";
import { sseResponse } from "../../lib/http/sse.ts";
import { chatCompletions } from "../../lib/openai/chat.ts";
import { openAiError } from "../../lib/openai/errors.ts";
import { modelList } from "../../lib/openai/objects.ts";
import { nowSeconds, type OpenAiAnswer, type OpenAiPlane } from "../../lib/openai/plane.ts";
import { CHAT_COMPLETION_REQUEST, RESPONSE_REQUEST } from "../../lib/openai/requests.ts";
import { createResponse, retrieveResponse } from "../../lib/openai/responses.ts";
import { readRequest } from "../../lib/requests.ts";
import { finishApp } from "../hono_app.ts";
import type { ControlPlaneApp, ControlPlaneContext, Env } from "./context.ts";
import type { Answer } from "./health_routes.ts";

/** An endpoint's answer as HTTP: JSON, or server-sent events. */
function answered(answer: OpenAiAnswer): Response {
  return answer.stream ? sseResponse(answer.frames) : jsonResponse(JSON.stringify(answer.body));
}

/** The OpenAI endpoints' state of each control plane (one, so responses waiting are seen by all). */
const planes = new WeakMap<ControlPlaneContext, OpenAiPlane>();

function planeOf(ctx: ControlPlaneContext): OpenAiPlane {
  let plane = planes.get(ctx);
  if (!plane) {
    plane = {
      db: openHive(),
      runs: ctx.runs,
      target: ctx.trusted,
      harness: ctx.harness,
      waiting: new Map(),
    };
    planes.set(ctx, plane);
  }
  return plane;
}

/**
 * The `POST /v1/chat/completions` answer: the token checked for `run` while the body is read, the
 * request read by its schema and answered by `lib/openai/`, every error in OpenAI's shape. The
 * control plane answers the path with it before the router, as the route below does.
 *
 * @param ctx The control plane's context.
 * @returns The answer.
 */
export function chatCompletionsAnswer(ctx: ControlPlaneContext): Answer {
  const plane = planeOf(ctx);
  return async (request) => {
    try {
      const { who, body } = await ctx.verifiedBody(request, "run");
      return answered(
        await chatCompletions(plane, readRequest(CHAT_COMPLETION_REQUEST, body), who),
      );
    } catch (err) {
      return errorResponse(err, openAiError);
    }
  };
}

/**
 * The `/v1/` routes, finished with their own 404, 405 and errors in OpenAI's shape; mount them at
 * `/v1`.
 *
 * @param ctx The control plane's context.
 * @returns Their app.
 */
export function openAiRoutes(ctx: ControlPlaneContext): ControlPlaneApp {
  const app = new Hono<Env>();
  const plane = planeOf(ctx);
  const since = nowSeconds();
  app.get("/models", async (c) => {
    await ctx.authorize(c, "read");
    return jsonResponse(JSON.stringify(modelList(ctx.harness.id, since)));
  });
  const chat = chatCompletionsAnswer(ctx);
  app.post("/chat/completions", (c) => chat(c.req.raw));
  app.post("/responses", async (c) => {
    const { who, body } = await ctx.authorizedBody(c, "run");
    return answered(await createResponse(plane, readRequest(RESPONSE_REQUEST, body), who));
  });
  app.get("/responses/:id", async (c) => {
    const who = await ctx.authorize(c, "read");
    return jsonResponse(JSON.stringify(await retrieveResponse(plane, c.req.param("id"), who)));
  });
  return finishApp(app, { shape: openAiError, mounted: true });
}
