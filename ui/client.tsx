/**
 * The browser's entry: reads the page state the server wrote, makes the page's one store, and
 * hydrates every `[data-island]` element with its island. Moving around afterwards happens without
 * reloading (history entries, back and forward included).
 *
 * @module
 */

import { effect } from "@preact/signals";
import { hydrate } from "preact";
import { type IslandName, ISLANDS } from "./island_registry.ts";
import { type PageState, STATE_ELEMENT_ID } from "./page_state.ts";
import { parseRoute, routeHref } from "./route.ts";
import { createStore, StoreContext } from "./store.ts";

const state = JSON.parse(document.getElementById(STATE_ELEMENT_ID)!.textContent!) as PageState;
const store = createStore({
  route: state.route,
  data: state.data,
  ...(state.errors ? { errors: state.errors } : {}),
  health: state.health,
  fetcher: (path, init) => fetch(path, { ...init, credentials: "same-origin" }),
});

for (const el of document.querySelectorAll<HTMLElement>("[data-island]")) {
  const Island = ISLANDS[el.dataset.island as IslandName];
  if (!Island) continue;
  hydrate(
    <StoreContext.Provider value={store}>
      <Island />
    </StoreContext.Provider>,
    el,
  );
}
document.documentElement.dataset.hydrated = "true";

// Hiding the chat is remembered in this browser.
store.chatHidden.value = localStorage.getItem("fw.chatHidden") === "1";
effect(() => {
  document.body.classList.toggle("chat-hidden", store.chatHidden.value);
  localStorage.setItem("fw.chatHidden", store.chatHidden.value ? "1" : "0");
});

// The address the server resolved (the conversation it chose) becomes the page's address.
const canonical = routeHref(state.route);
if (canonical !== location.pathname + location.search) history.replaceState(null, "", canonical);

addEventListener("popstate", () => {
  const next = parseRoute(new URL(location.href));
  if (!next || next.page !== store.route.value.page) location.reload();
  else store.route.value = next;
});

if (state.dev) watchForRestart();

/** A development checkout reloads the page when the server comes back with new code. */
function watchForRestart() {
  let boot: string | null = null;
  const source = new EventSource("/_dev/boot");
  source.addEventListener("boot", (e) => {
    const id = (e as MessageEvent).data as string;
    if (boot && boot !== id) location.reload();
    boot = id;
  });
}
