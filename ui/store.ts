/**
 * The state the islands of one page share: where the browser is (the route), the API data seen so far
 * (a cache seeded with what the server rendered, so hydration matches), and short notices. The server
 * makes one store per request; the browser makes one per page and gives it to every island.
 *
 * @module
 */

import { type Signal, signal } from "@preact/signals";
import { createContext } from "preact";
import { useContext, useEffect } from "preact/hooks";
import { ApiError, callApi, type Fetcher } from "./api.ts";
import { type Route, routeHref } from "./route.ts";
import { createRunStream, type RunStream } from "./run_stream.ts";
import type { Health } from "./types.ts";

/** What the API answered for one path. */
export interface Entry<T = unknown> {
  data?: T;
  error?: ApiError;
  loading: boolean;
}

interface Slot {
  entry: Signal<Entry>;
  /** How many components show it now. */
  mounts: number;
  /** Changed on the server since it was loaded: load again when next shown. */
  stale: boolean;
  /** The load under way, if any. */
  inflight: Promise<void> | null;
  /** When its data was loaded (ms). */
  loadedAt: number;
}

/** Shown data older than this is loaded again (kept on screen meanwhile) when shown anew. */
const MAX_AGE_MS = 15_000;

/** The API data a page has seen. */
export interface ApiCache {
  /** The entry of a path (created empty when new). */
  entry<T>(path: string): Signal<Entry<T>>;
  /**
   * Loads a path unless it is loaded and current; `force` loads it again (after a load under way,
   * so its answer is at least as new as the call). The old data stays shown while it loads.
   */
  load(path: string, force?: boolean): Promise<void>;
  /** Reloads the shown paths starting with any prefix; the others load again when next shown. */
  refresh(...prefixes: string[]): void;
  /** Marks a path shown (for {@link ApiCache.refresh}); returns the undo. */
  mount(path: string): () => void;
  /** Everything loaded so far, by path (the server sends it to the browser). */
  snapshot(): Record<string, unknown>;
}

/**
 * Creates a cache. The seeds serve the first render only (hydration); later loads ask the API.
 *
 * @param fetcher How to reach the API.
 * @param seed Data already loaded, by path.
 * @param seedErrors Errors already met, by path.
 * @returns The cache.
 */
export function createApiCache(
  fetcher: Fetcher,
  seed: Record<string, unknown> = {},
  seedErrors: Record<string, { status: number; kind: string; message: string }> = {},
): ApiCache {
  const slots = new Map<string, Slot>();
  const first = (path: string): Entry => {
    if (path in seed) return { data: seed[path], loading: false };
    const e = seedErrors[path];
    if (e) return { error: new ApiError(e.status, e.kind, e.message), loading: false };
    return { loading: false };
  };
  const slot = (path: string): Slot => {
    let s = slots.get(path);
    if (!s) {
      s = {
        entry: signal<Entry>(first(path)),
        mounts: 0,
        stale: false,
        inflight: null,
        loadedAt: Date.now(),
      };
      slots.set(path, s);
    }
    return s;
  };
  const fetchInto = async (s: Slot, path: string) => {
    const current = s.entry.value;
    s.entry.value = { ...current, loading: true };
    s.stale = false;
    try {
      const data = await callApi(fetcher, path);
      s.entry.value = { data, loading: false };
      s.loadedAt = Date.now();
    } catch (err) {
      const error = err instanceof ApiError ? err : new ApiError(0, "error", String(err));
      // What was shown stays shown beside the error.
      s.entry.value = { data: current.data, error, loading: false };
    }
  };
  const cache: ApiCache = {
    entry: <T>(path: string) => slot(path).entry as Signal<Entry<T>>,
    load(path, force = false) {
      const s = slot(path);
      if (s.inflight) {
        return force ? s.inflight.then(() => cache.load(path, true)) : s.inflight;
      }
      const current = s.entry.value;
      const old = Date.now() - s.loadedAt > MAX_AGE_MS;
      if (!force && !s.stale && !old && (current.data !== undefined || current.error)) {
        return Promise.resolve();
      }
      s.inflight = fetchInto(s, path).finally(() => s.inflight = null);
      return s.inflight;
    },
    refresh(...prefixes) {
      for (const [path, s] of slots) {
        if (!prefixes.some((p) => path.startsWith(p))) continue;
        if (s.mounts > 0) void cache.load(path, true);
        else s.stale = true;
      }
    },
    mount(path) {
      const s = slot(path);
      s.mounts += 1;
      return () => {
        s.mounts -= 1;
      };
    },
    snapshot() {
      const out: Record<string, unknown> = {};
      for (const [path, s] of slots) {
        if (s.entry.value.data !== undefined) out[path] = s.entry.value.data;
      }
      return out;
    },
  };
  return cache;
}

/** A short notice shown at the bottom of the page. */
export interface Notice {
  /** Tells notices apart (each goes away on its own timer). */
  id: number;
  text: string;
  kind: "info" | "error";
}

/** At most this many notices show at once (the oldest goes first). */
export const MAX_NOTICES = 3;

/** The shared state of a page. */
export interface Store {
  route: Signal<Route>;
  cache: ApiCache;
  fetcher: Fetcher;
  /** The page's one stream of live runs. */
  live: RunStream;
  health: Health;
  /** The notices showing, oldest first. */
  notices: Signal<Notice[]>;
  /** Whether the chat column is hidden (the workspace takes its room). */
  chatHidden: Signal<boolean>;
  /** Goes to a route (adds a history entry unless `replace`). */
  navigate(route: Route, options?: { replace?: boolean }): void;
  /** Shows a notice for a few seconds, below the ones already showing. */
  notify(text: string, kind?: Notice["kind"]): void;
  /** Takes a notice away. */
  dismiss(id: number): void;
}

/**
 * Creates the store of a page.
 *
 * @param init The route, the API fetcher, the seeded data and the health.
 * @returns The store.
 */
export function createStore(
  init: {
    route: Route;
    fetcher: Fetcher;
    data: Record<string, unknown>;
    errors?: Record<string, { status: number; kind: string; message: string }>;
    health: Health;
  },
): Store {
  const route = signal(init.route);
  const notices = signal<Notice[]>([]);
  let lastId = 0;
  const dismiss = (id: number) => {
    notices.value = notices.value.filter((n) => n.id !== id);
  };
  const inBrowser = typeof document !== "undefined";
  return {
    route,
    cache: createApiCache(init.fetcher, init.data, init.errors),
    fetcher: init.fetcher,
    live: createRunStream(init.fetcher),
    health: init.health,
    notices,
    chatHidden: signal(false),
    navigate(next, options = {}) {
      if (inBrowser && next.page !== route.value.page) {
        // Another page has other islands: load it.
        location.assign(routeHref(next));
        return;
      }
      if (inBrowser) {
        const href = routeHref(next);
        if (href !== location.pathname + location.search) {
          if (options.replace) history.replaceState(null, "", href);
          else history.pushState(null, "", href);
        }
      }
      route.value = next;
    },
    notify(text, kind = "info") {
      const id = ++lastId;
      // The same text again replaces the one showing (a repeated action is one notice).
      notices.value = [...notices.value.filter((n) => n.text !== text), { id, text, kind }]
        .slice(-MAX_NOTICES);
      if (inBrowser) setTimeout(() => dismiss(id), kind === "error" ? 8000 : 4000);
    },
    dismiss,
  };
}

/** The store of the page being rendered. */
export const StoreContext = createContext<Store | null>(null);

/**
 * The page's store.
 *
 * @returns The store.
 */
export function useStore(): Store {
  const store = useContext(StoreContext);
  if (!store) throw new Error("useStore() outside a StoreContext");
  return store;
}

/**
 * The API's answer for a path, loaded when first shown and kept current by `refresh`.
 *
 * @param path The API path, or null for nothing.
 * @returns The entry (empty for null).
 */
export function useApi<T>(path: string | null): Entry<T> {
  const { cache } = useStore();
  const entry = path ? cache.entry<T>(path) : null;
  useEffect(() => {
    if (!path) return;
    const unmount = cache.mount(path);
    void cache.load(path);
    return unmount;
  }, [path]);
  return entry ? entry.value : { loading: false };
}
