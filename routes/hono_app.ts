/**
 * What every Hono app of the framework ends with: 405 for a known path with another method (the
 * allowed methods derived from the app's own route table, never a second list), 404 for anything
 * else, a path that is not valid percent-encoding as 400, and every error in the ok wrapper.
 *
 * @module
 */

import type { Env, Hono } from "hono";
import { badInput, FrameworkError, methodNotAllowed } from "../lib/errors.ts";
import { errorResponse } from "../lib/http/response.ts";

/**
 * Adds the 405, 404 and error answers to an app whose routes are all registered.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { okResponse } from "../lib/http/response.ts";
 *
 * const app = new Hono();
 * app.get("/health", () => okResponse({}));
 * Deno.serve(finishApp(app).fetch); // POST /health: 405 with Allow: GET; GET /other: 404
 * ```
 * @param app The app.
 * @returns The same app.
 */
export function finishApp<E extends Env>(app: Hono<E>): Hono<E> {
  const methods = new Map<string, Set<string>>();
  for (const r of app.routes) {
    if (r.method === "ALL") continue; // middleware
    const set = methods.get(r.path) ?? new Set<string>();
    set.add(r.method);
    methods.set(r.path, set);
  }
  for (const [path, allowed] of methods) {
    const list = [...allowed];
    app.all(path, (c) => {
      throw list.includes(c.req.method)
        ? new FrameworkError("not_found", `Not available: ${c.req.method} ${c.req.path}`)
        : methodNotAllowed(c.req.method, list);
    });
  }
  app.notFound((c) =>
    errorResponse(new FrameworkError("not_found", `No route ${c.req.method} ${c.req.path}`))
  );
  app.onError((err) =>
    errorResponse(
      err instanceof URIError ? badInput("The request path is not valid percent-encoding") : err,
    )
  );
  return app;
}
