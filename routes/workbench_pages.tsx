/**
 * The workbench's pages: every address of `ui/route.ts` rendered on the server with the data its
 * islands show (read from the API in process), plus the page's own script and styles. A strict content
 * security policy keeps every byte on this origin.
 *
 * @module
 */

import { acceptsGzip, gzip, textResponse } from "../lib/http/compress.ts";
import appCss from "../ui/app.css" with { type: "text" };
import clientJs from "../ui/dist/client.js" with { type: "text" };
import { sha256Hex } from "../lib/hash.ts";
import { escapeHtml } from "../lib/html.ts";
import { renderDocument } from "../ui/document.tsx";
import type { PageState } from "../ui/page_state.ts";
import { pagePaths, paths } from "../ui/paths.ts";
import { parseRoute, type Route } from "../ui/route.ts";
import type { Conversation, Health } from "../ui/types.ts";

/** Options of {@link createPages}. */
export interface PagesOptions {
  /** The workbench API, called in process for what a page shows. */
  api: (request: Request) => Response | Promise<Response>;
  /** A development checkout: pages reload when the server restarts. */
  dev?: boolean;
  /** Replaces the embedded script and styles (a development checkout builds them fresh). */
  assets?: { js: string; css: string };
}

/** The origin of the API requests a page makes in process (never sent over a network). */
const API_ORIGIN = "http://127.0.0.1";

/** The content security policy of every page: nothing from another origin, no inline script. */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

interface ApiAnswer {
  status: number;
  data?: unknown;
  error?: { status: number; kind: string; message: string };
}

interface Asset {
  body: string;
  type: string;
  version: string;
  /** The body gzipped, made once on first use. */
  gzipped?: Promise<Uint8Array>;
}

function asset(body: string, type: string): Asset {
  return { body, type, version: sha256Hex(body).slice(0, 12) };
}

async function serveAsset(a: Asset, url: URL, request: Request): Promise<Response> {
  const compressed = acceptsGzip(request) ? await (a.gzipped ??= gzip(a.body)) : undefined;
  return await textResponse(request, a.body, {
    headers: {
      "content-type": a.type,
      "cache-control": url.searchParams.get("v") === a.version
        ? "public, max-age=31536000, immutable"
        : "no-cache",
      "x-content-type-options": "nosniff",
    },
  }, compressed);
}

function html(request: Request, body: string, status = 200): Promise<Response> {
  return textResponse(request, body, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": PAGE_CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    },
  });
}

/**
 * Builds the page handler.
 *
 * @example
 * ```ts
 * import { createWorkbenchApi } from "./workbench_api.ts";
 *
 * const api = await createWorkbenchApi({ harnessesDir: "./harnesses" });
 * const pages = createPages({ api: api.fetch });
 * const res = await pages(new Request("http://127.0.0.1:8770/h/hello/trace"));
 * ```
 * @param options The API, and development settings.
 * @returns The handler for every path that is not `/api`.
 */
export function createPages(options: PagesOptions): (request: Request) => Promise<Response> {
  const js = asset(options.assets?.js ?? clientJs, "text/javascript; charset=utf-8");
  const css = asset(options.assets?.css ?? appCss, "text/css; charset=utf-8");
  const urls = { js: `/static/client.js?v=${js.version}`, css: `/static/app.css?v=${css.version}` };
  const boot = crypto.randomUUID();

  const api = async (path: string): Promise<ApiAnswer> => {
    try {
      const res = await options.api(new Request(API_ORIGIN + path));
      const body = await res.json().catch(() => null);
      if (res.ok && body?.ok) return { status: res.status, data: body.data };
      return {
        status: res.status,
        error: {
          status: res.status,
          kind: String(body?.error?.kind ?? "error"),
          message: String(body?.error?.message ?? `The workbench API answered ${res.status}`),
        },
      };
    } catch (err) {
      console.error(`workbench pages: the API did not answer ${path}:`, err);
      return {
        status: 502,
        error: {
          status: 502,
          kind: "unavailable",
          message: "The workbench API did not answer; restart `framework workbench`",
        },
      };
    }
  };

  return async (request) => {
    const url = new URL(request.url);
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method not allowed", { status: 405, headers: { allow: "GET, HEAD" } });
    }
    if (url.pathname === "/static/client.js") return await serveAsset(js, url, request);
    if (url.pathname === "/static/app.css") return await serveAsset(css, url, request);
    if (url.pathname === "/_dev/boot" && options.dev) return bootStream(boot, request.signal);
    const route = parseRoute(url);
    if (!route) return await html(request, notFoundPage(url.pathname, urls.css), 404);

    const [health, conversations] = await Promise.all([
      api(paths.health()),
      api(paths.conversations()),
    ]);
    const resolved = resolveRoute(
      route,
      url,
      (conversations.data as { conversations: Conversation[] } | undefined)?.conversations ?? [],
    );
    const wanted = pagePaths(resolved).filter((p) => p !== paths.conversations());
    const loaded = await Promise.all(wanted.map(async (p) => [p, await api(p)] as const));
    const data: Record<string, unknown> = {};
    const errors: NonNullable<PageState["errors"]> = {};
    let status = 200;
    for (const [p, r] of [[paths.conversations(), conversations] as const, ...loaded]) {
      if (r.data !== undefined) data[p] = r.data;
      else if (r.error) {
        errors[p] = r.error;
        if (r.status === 502) status = 502;
        else if (r.status === 404 && isPageSubject(resolved, p)) status = 404;
      }
    }
    const state: PageState = {
      route: resolved,
      data,
      ...(Object.keys(errors).length ? { errors } : {}),
      health: (health.data as Health | undefined) ?? { copilot: null, harnesses_dir: "" },
      dev: !!options.dev,
    };
    return await html(request, renderDocument(state, urls), status);
  };
}

/** Whether a path is what the page is about (its harness, or the thread it shows): unknown, 404. */
function isPageSubject(route: Route, path: string): boolean {
  if (!route.harness) return false;
  if (path === paths.harness(route.harness)) return true;
  const thread = route.tab === "runs" ? route.query.thread : undefined;
  return thread !== undefined && path === paths.thread(thread);
}

/**
 * The route a page shows: without `?c=` the most recent conversation; on `/`, the harness and run
 * that conversation had selected.
 */
function resolveRoute(route: Route, url: URL, conversations: Conversation[]): Route {
  const conversation = route.conversation
    ? conversations.find((c) => c.id === route.conversation)
    : conversations[0];
  const out: Route = { ...route, conversation: conversation?.id ?? route.conversation };
  if (route.page === "workbench" && url.pathname === "/" && !route.harness && conversation) {
    out.harness = conversation.selected_harness_id;
    out.run = route.run ?? conversation.selected_run_id;
  }
  return out;
}

function bootStream(boot: string, signal: AbortSignal): Response {
  const enc = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(enc.encode(`retry: 500\nevent: boot\ndata: ${boot}\n\n`));
      timer = setInterval(() => controller.enqueue(enc.encode(": keep-alive\n\n")), 15_000);
      signal.addEventListener("abort", () => {
        clearInterval(timer);
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
    cancel() {
      clearInterval(timer);
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-store" },
  });
}

function notFoundPage(path: string, css: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Not found · Workbench</title><link rel="stylesheet" href="${css}"></head>
<body><main class="plain-page">
<p class="brand"><a href="/"><span class="brand-mark" aria-hidden="true">◆</span> framework <span class="muted">workbench</span></a></p>
<h1>Nothing at ${escapeHtml(path)}</h1>
<p>The workbench has <a href="/">the chat</a>, <code>/h/&lt;harness&gt;/&lt;tab&gt;</code> for a harness
(overview, runs, trace, spec, improve) and <a href="/settings/memory">Settings › Memory</a>.</p>
<p><a class="button" href="/">Back to the workbench</a></p>
</main></body></html>`;
}
