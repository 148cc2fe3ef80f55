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
import { jsonResponse } from "../../lib/http/response.ts";
import { sseResponse } from "../../lib/http/sse.ts";
import type { ControlPlaneApp, ControlPlaneContext, Env } from "./context.ts";

/**
 * The A2A routes; mount them at `/`.
 *
 * @param ctx The control plane's context.
 * @returns Their app.
 */
export function a2aRoutes(ctx: ControlPlaneContext): ControlPlaneApp {
  const app = new Hono<Env>();
  const plane: A2aPlane = {
    db: openHive(),
    runs: ctx.runs,
    target: ctx.trusted,
    harness: ctx.harness,
  };
  app.get(
    AGENT_CARD_PATH,
    async (c) =>
      jsonResponse(JSON.stringify(await servedCard(ctx.harness.dir, new URL(c.req.url).origin))),
  );
  app.post(A2A_PATH, async (c) => {
    let read;
    try {
      read = await ctx.authorizedBody(c, "run");
    } catch (err) {
      // The token's verdict stands as on every route; a body that is not JSON is a parse error.
      if (!(err instanceof FrameworkError) || err.kind !== "bad_input" || err.httpStatus) throw err;
      return jsonResponse(
        JSON.stringify(rpcError(null, new RpcError(RPC_CODES.PARSE_ERROR, err.message))),
      );
    }
    const answer = await a2aRequest(plane, read.body, read.who);
    if (answer.stream) return sseResponse(answer.frames);
    return new Response(JSON.stringify(answer.body), {
      status: answer.status,
      headers: { "content-type": "application/json", ...answer.headers },
    });
  });
  return app;
}
