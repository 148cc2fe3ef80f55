/**
 * The workbench launcher: the one URL and origin the browser sees. It answers only to its own host
 * names, refuses cross-origin writes, asks for the access token when it listens beyond loopback, serves
 * the pages, and hands `/api` to the API app in this process (`app.fetch`: no second port, no secret
 * between them), streaming bodies and server-sent events as they come.
 *
 * @module
 */

import { withCheckedHost } from "../lib/http/host.ts";
import { FrameworkError } from "../lib/errors.ts";
import { errorResponse } from "../lib/http/response.ts";
import { ACCESS_COOKIE, hostAllowed, readCookie, secretMatches } from "../lib/workbench/access.ts";

/** A request handler. */
export type Handler = (request: Request) => Response | Promise<Response>;

/** Options of {@link createLauncher}. */
export interface LauncherOptions {
  /** The API app, called in process for `/api`. */
  api: Handler;
  /** `host:port` values the launcher answers to. */
  allowedHosts: Set<string>;
  /** The access token, required when listening beyond loopback; null on loopback. */
  accessToken: string | null;
  /** Serves everything that is not `/api`. */
  pages: Handler;
}

function refusal(status: 401 | 403, message: string, wantsHtml: boolean): Response {
  if (!wantsHtml) {
    const kind = status === 401 ? "unauthorized" : "forbidden";
    return errorResponse(new FrameworkError(kind, message));
  }
  const html = `<!doctype html><meta charset="utf-8"><title>Workbench</title>
<body style="font:16px system-ui;max-width:40rem;margin:4rem auto;padding:0 1rem">
<h1>${status === 401 ? "Access token needed" : "Refused"}</h1><p>${message}</p></body>`;
  return new Response(html, { status, headers: { "content-type": "text/html; charset=utf-8" } });
}

/**
 * Builds the launcher's request handler.
 *
 * @param options The API, the allowed hosts, the token and the pages.
 * @returns The handler.
 */
export function createLauncher(options: LauncherOptions): Handler {
  return withCheckedHost(async (request: Request) => {
    const url = new URL(request.url);
    const wantsHtml = !url.pathname.startsWith("/api/") && request.method === "GET";
    // DNS-rebinding protection: only our own host names.
    if (!hostAllowed(request.headers.get("host"), options.allowedHosts)) {
      return refusal(
        403,
        "This workbench only answers to its own addresses (the Host header is foreign).",
        wantsHtml,
      );
    }
    // No writes from other sites.
    const origin = request.headers.get("origin");
    if (origin && request.method !== "GET" && request.method !== "HEAD") {
      let originHost = "";
      try {
        originHost = new URL(origin).host;
      } catch {
        // not a URL
      }
      if (!hostAllowed(originHost, options.allowedHosts)) {
        return refusal(403, "Cross-origin requests are refused.", wantsHtml);
      }
    }
    if (options.accessToken !== null) {
      const given = url.searchParams.get("token");
      if (given !== null && secretMatches(given, options.accessToken)) {
        url.searchParams.delete("token");
        return new Response(null, {
          status: 303,
          headers: {
            location: url.pathname + url.search,
            "set-cookie": `${ACCESS_COOKIE}=${
              encodeURIComponent(options.accessToken)
            }; HttpOnly; SameSite=Strict; Path=/`,
          },
        });
      }
      const cookie = readCookie(request.headers.get("cookie"), ACCESS_COOKIE);
      const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
      if (
        !secretMatches(cookie, options.accessToken) && !secretMatches(bearer, options.accessToken)
      ) {
        return refusal(
          401,
          "Open the workbench with the URL it printed at start (it carries ?token=…).",
          wantsHtml,
        );
      }
    }
    if (url.pathname === "/api" || url.pathname.startsWith("/api/")) {
      return await options.api(request);
    }
    return await options.pages(request);
  });
}
