/**
 * What every Hono app of the framework ends with: 405 for a known path with another method (the
 * allowed methods derived from the app's own route table, never a second list), 404 for anything
 * else, a path that is not valid percent-encoding as 400, and every error in the ok wrapper.
 *
 * @module
 */

import type { Env, Hono } from "hono";
import { badInput, FrameworkError, methodNotAllowed } from "../lib/errors.ts";
import { errorResponse, type ErrorShape } from "../lib/http/response.ts";

/** Options of {@link finishApp}. */
export interface FinishOptions {
  /** How errors are answered (default: the ok wrapper). */
  shape?: ErrorShape;
  /**
   * The app is mounted under a path of another app (`app.route`), which keeps only its routes: its
   * own 404 is then a last route matching every path under the mount, answered in its shape.
   */
  mounted?: boolean;
}

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
 * @param options The error shape, and whether the app is mounted in another.
 * @returns The same app.
 */
export function finishApp<E extends Env>(app: Hono<E>, options: FinishOptions = {}): Hono<E> {
  const respond = (err: unknown) => errorResponse(err, options.shape);
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
  const noRoute = (method: string, path: string) =>
    new FrameworkError("not_found", `No route ${method} ${path}`);
  if (options.mounted) {
    app.all("*", (c) => {
      throw noRoute(c.req.method, c.req.path);
    });
  }
  app.notFound((c) => respond(noRoute(c.req.method, c.req.path)));
  app.onError((err) =>
    respond(
      err instanceof URIError ? badInput("The request path is not valid percent-encoding") : err,
    )
  );
  return app;
}
