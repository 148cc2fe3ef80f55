/**
 * The control plane as an A2A agent (docs/control-plane.md, A2A): its agent card at
 * `/.well-known/agent-card.json` (no token), and JSON-RPC at `POST /a2a` with the `run` scope —
 * send, stream, get and cancel. A bad or missing token is answered as on every route (401/403); a
 * body that is not JSON is a JSON-RPC parse error; everything else is `lib/a2a/`'s.
 *
 * @module
 */

import { Hono } from "hono";
import { servedCard } from "../../lib/a2a/card.ts";
import { A2A_PATH, AGENT_CARD_PATH } from "../../lib/a2a/card.ts";
import { type A2aPlane, a2aRequest } from "../../lib/a2a/methods.ts";
import { RPC_CODES, RpcError, rpcError } from "../../lib/a2a/rpc.ts";
import { FrameworkError } from "../../lib/errors.ts";
import { openHive } from "../../lib/hive/open.ts";
import { errorResponse, jsonResponse } from "../../lib/http/response.ts";
import { sseResponse } from "../../lib/http/sse.ts";
import type { ControlPlaneApp, ControlPlaneContext, Env } from "./context.ts";
import type { Answer } from "./health_routes.ts";

/** The headers of a JSON-RPC answer that carries none of its own (all but a full queue's 503). */
const RPC_HEADERS = { "content-type": "application/json" };

/**
 * The `POST /a2a` answer: the token checked for `run` while the body is read, the JSON-RPC request
 * answered by `lib/a2a/`, a refusal of the token answered here (401/403, as on every route), and a
 * body that is not JSON answered as a JSON-RPC parse error. The control plane answers `POST /a2a`
 * with it before the router, as the route below does.
 *
 * @param ctx The control plane's context.
 * @returns The answer.
 */
export function a2aAnswer(ctx: ControlPlaneContext): Answer {
  const plane: A2aPlane = {
    db: openHive(),
    runs: ctx.runs,
    target: ctx.trusted,
    harness: ctx.harness,
  };
  return async (request) => {
    try {
      let read;
      try {
        read = await ctx.verifiedBody(request, "run");
      } catch (err) {
        // The token's verdict stands as on every route; a body that is not JSON is a parse error.
        if (!(err instanceof FrameworkError) || err.kind !== "bad_input" || err.httpStatus) {
          throw err;
        }
        return jsonResponse(
          JSON.stringify(rpcError(null, new RpcError(RPC_CODES.PARSE_ERROR, err.message))),
        );
      }
      const answer = await a2aRequest(plane, read.body, read.who);
      if (answer.stream) return sseResponse(answer.frames);
      const extra = Object.keys(answer.headers).length > 0;
      return new Response(JSON.stringify(answer.body), {
        status: answer.status,
        headers: extra ? { ...RPC_HEADERS, ...answer.headers } : RPC_HEADERS,
      });
    } catch (err) {
      return errorResponse(err);
    }
  };
}

/**
 * The A2A routes; mount them at `/`.
 *
 * @param ctx The control plane's context.
 * @returns Their app.
 */
export function a2aRoutes(ctx: ControlPlaneContext): ControlPlaneApp {
  const app = new Hono<Env>();
  const a2a = a2aAnswer(ctx);
  app.get(
    AGENT_CARD_PATH,
    async (c) =>
      jsonResponse(JSON.stringify(await servedCard(ctx.harness.dir, new URL(c.req.url).origin))),
  );
  app.post(A2A_PATH, (c) => a2a(c.req.raw));
  return app;
}
