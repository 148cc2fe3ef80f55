/**
 * The server's side of a page: the HTML document with every island rendered in place (so the page
 * reads before any script runs), the page state for the browser, and links to the launcher's own CSS
 * and script. Nothing is loaded from another origin.
 *
 * @module
 */

import { escapeHtml } from "../lib/html.ts";
import { renderToString } from "preact-render-to-string";
import { ISLANDS, islandsOf } from "./island_registry.ts";
import { type PageState, scriptJson, STATE_ELEMENT_ID } from "./page_state.ts";
import { createStore, StoreContext } from "./store.ts";

/** Where the page's own assets are served, with a content hash for caching. */
export interface AssetUrls {
  css: string;
  js: string;
}

const FAVICON = "data:image/svg+xml," +
  encodeURIComponent(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M8 1l7 7-7 7-7-7z" fill="#3b5bdb"/></svg>`,
  );

const TAGS = {
  rail: "aside",
  chat: "section",
  workspace: "main",
  memory: "main",
  notices: "div",
} as const;

/**
 * Renders a whole page.
 *
 * @example
 * ```ts
 * import type { PageState } from "./page_state.ts";
 *
 * declare const state: PageState; // the route, its API data and the health (the page server's)
 * const html = renderDocument(state, { css: "/static/app.css?v=1", js: "/static/client.js?v=1" });
 * ```
 * @param state The route, the data, the health.
 * @param assets The CSS and script addresses.
 * @returns The HTML document.
 */
export function renderDocument(state: PageState, assets: AssetUrls): string {
  const store = createStore({
    route: state.route,
    data: state.data,
    ...(state.errors ? { errors: state.errors } : {}),
    health: state.health,
    fetcher: () => Promise.reject(new Error("no fetching while rendering on the server")),
  });
  const islands = islandsOf(state.route.page).map((name) => {
    const Island = ISLANDS[name];
    const Tag = TAGS[name];
    const html = renderToString(
      <StoreContext.Provider value={store}>
        <Island />
      </StoreContext.Provider>,
    );
    return `<${Tag} class="island island-${name}" data-island="${name}">${html}</${Tag}>`;
  });
  const title = state.route.page === "memory"
    ? "Memory · Settings · Workbench"
    : state.route.harness
    ? `${state.route.harness} · ${state.route.tab} · Workbench`
    : "Workbench";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="${FAVICON}">
<link rel="stylesheet" href="${assets.css}">
<script type="module" src="${assets.js}"></script>
</head>
<body>
<div class="app app-${state.route.page}">${islands.slice(0, -1).join("")}</div>
${islands.at(-1)}
<script type="application/json" id="${STATE_ELEMENT_ID}">${scriptJson(state)}</script>
<noscript><p class="noscript">The workbench needs JavaScript for chatting and editing; what you see is a snapshot.</p></noscript>
</body>
</html>`;
}
