/**
 * The workbench's pages. This first page is server-rendered from the API: the copilot's status, the
 * harnesses and the conversations, with the API's address for scripts.
 *
 * @module
 */

import { SECRET_HEADER } from "../lib/workbench/access.ts";

/** Options of {@link createPages}. */
export interface PagesOptions {
  apiUrl: string;
  secret: string;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Builds the page handler.
 *
 * @param options Where the API is and its secret.
 * @returns The handler for every path that is not `/api`.
 */
export function createPages(options: PagesOptions): (request: Request) => Promise<Response> {
  const api = async (path: string) => {
    const res = await fetch(options.apiUrl + path, {
      headers: { [SECRET_HEADER]: options.secret },
    });
    return (await res.json()).data;
  };
  return async (request) => {
    const url = new URL(request.url);
    if (request.method !== "GET" || url.pathname !== "/") {
      return new Response("Not found", {
        status: 404,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
    }
    const [health, catalog, conversations] = await Promise.all([
      api("/api/health"),
      api("/api/harnesses"),
      api("/api/conversations"),
    ]);
    const harnesses = (catalog.harnesses as { id: string; name: string; root_path: string }[])
      .map((h) =>
        `<li><b>${escape(h.name)}</b> <code>${escape(h.id)}</code> — ${escape(h.root_path)}</li>`
      ).join("");
    const convs = (conversations.conversations as { id: string; title: string }[])
      .map((c) => `<li>${escape(c.title)} <code>${escape(c.id)}</code></li>`).join("");
    const html =
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Workbench</title></head>
<body style="font:15px system-ui;max-width:60rem;margin:2rem auto;padding:0 1rem">
<h1>Workbench</h1>
<p>Copilot: ${health.copilot ? escape(health.copilot.model) : "no model configured"}</p>
<h2>Harnesses</h2><ul>${harnesses || "<li>None yet.</li>"}</ul>
<h2>Conversations</h2><ul>${convs || "<li>None yet.</li>"}</ul>
<p>The API is served under <code>/api</code> on this address (see docs/workbench-api.md).</p>
</body></html>`;
    return new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
  };
}
