/**
 * The workbench's addresses, shared by the server (which renders any of them) and the browser (which
 * moves between them without reloading). The path names the page; the query carries the conversation
 * (`c`), the selected run (`run`) and each tab's own choices.
 *
 * | path                          | page                                  |
 * | ----------------------------- | ------------------------------------- |
 * | `/`                           | the chat, and the selected harness    |
 * | `/h/{id}`                     | a harness's Overview                  |
 * | `/h/{id}/{tab}`               | a harness's tab                       |
 * | `/h/{id}/runs?thread={id}`    | a thread's conversation, in Runs      |
 * | `/settings/memory`            | Settings › Memory                     |
 *
 * @module
 */

/** The workspace tabs, in the order the specification lists them. */
export const TABS = [
  { id: "use", label: "Use" },
  { id: "overview", label: "Overview" },
  { id: "runs", label: "Runs" },
  { id: "trace", label: "Trace" },
  { id: "versions", label: "Versions" },
  { id: "spec", label: "Spec" },
  { id: "improve", label: "Improve" },
] as const;

/** A workspace tab. */
export type Tab = typeof TABS[number]["id"];

/** Query keys a route keeps. */
const KEYS = [
  "c",
  "run",
  "status",
  "before",
  "p",
  "seq",
  "types",
  "scope",
  "q",
  "m",
  "a",
  "b",
  "set",
  "thread",
] as const;

/** A query key. */
export type QueryKey = typeof KEYS[number];

/** Where the browser is. */
export interface Route {
  page: "workbench" | "memory";
  /** The selected harness. */
  harness: string | null;
  tab: Tab;
  /** The conversation shown in the chat. */
  conversation: string | null;
  /** The selected run. */
  run: string | null;
  /**
   * Tab choices: `status`, `before`, `p` (proposal), `seq`, `types`, `scope`, `q`, `m` (memory),
   * `a`, `b`, `set` (the versions compared and the eval set), `thread` (the conversation Runs shows).
   */
  query: Partial<Record<QueryKey, string>>;
}

/** The route with nothing chosen. */
export const HOME: Route = {
  page: "workbench",
  harness: null,
  tab: "overview",
  conversation: null,
  run: null,
  query: {},
};

/**
 * Reads a URL.
 *
 * @param url The address (only path and query matter).
 * @returns The route, or null for an address the workbench does not have.
 */
export function parseRoute(url: URL): Route | null {
  const q = url.searchParams;
  const query: Route["query"] = {};
  for (const k of KEYS) {
    const v = q.get(k);
    if (v !== null && v !== "" && k !== "c" && k !== "run") query[k] = v;
  }
  const base = {
    conversation: q.get("c") || null,
    run: q.get("run") || null,
    query,
  };
  const parts = url.pathname.split("/").filter(Boolean).map(decodeSegment);
  if (parts.some((p) => p === null)) return null;
  const [a, b, c, ...rest] = parts as string[];
  if (rest.length) return null;
  if (a === undefined) return { ...HOME, ...base };
  if (a === "settings" && (b === "memory" || b === undefined) && c === undefined) {
    return { ...HOME, ...base, page: "memory" };
  }
  if (a === "h" && b) {
    if (c !== undefined && !TABS.some((t) => t.id === c)) return null;
    return { ...HOME, ...base, harness: b, tab: (c ?? "overview") as Tab };
  }
  return null;
}

function decodeSegment(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/**
 * The address of a route.
 *
 * @param route The route.
 * @returns A path with its query.
 */
export function routeHref(route: Route): string {
  const path = route.page === "memory"
    ? "/settings/memory"
    : route.harness
    ? `/h/${encodeURIComponent(route.harness)}${route.tab === "overview" ? "" : `/${route.tab}`}`
    : "/";
  const q = new URLSearchParams();
  if (route.conversation) q.set("c", route.conversation);
  if (route.run) q.set("run", route.run);
  for (const k of KEYS) {
    const v = route.query[k];
    if (v) q.set(k, v);
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/**
 * A route changed in a few places. Moving to another harness or tab drops the tab's own choices;
 * moving to another harness drops the run.
 *
 * @param from The current route.
 * @param change What changes.
 * @returns The new route.
 */
export function withRoute(
  from: Route,
  change: Partial<Omit<Route, "query">> & { query?: Route["query"] },
): Route {
  const harnessChanged = change.harness !== undefined && change.harness !== from.harness;
  const tabChanged = change.tab !== undefined && change.tab !== from.tab;
  const pageChanged = change.page !== undefined && change.page !== from.page;
  const keep = harnessChanged || tabChanged || pageChanged ? {} : from.query;
  return {
    ...from,
    ...(harnessChanged ? { run: null, tab: "overview" as Tab } : {}),
    ...change,
    query: { ...keep, ...(change.query ?? {}) },
  };
}
