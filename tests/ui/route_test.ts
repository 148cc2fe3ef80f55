/**
 * The workbench's addresses (`ui/route.ts`): every page and tab reads back from its own address,
 * unknown addresses read as null, and `withRoute` keeps or drops the tab's choices and the run.
 *
 * @module
 */

import assert from "node:assert/strict";
import { pagePaths, paths } from "../../ui/paths.ts";
import { HOME, parseRoute, type Route, routeHref, TABS, withRoute } from "../../ui/route.ts";

const at = (href: string) => parseRoute(new URL(href, "http://127.0.0.1:8770"));

/** Reads an address, writes it back and reads that again. */
function roundTrip(href: string): Route {
  const route = at(href);
  assert.ok(route, `${href} should be a workbench address`);
  const again = routeHref(route);
  assert.deepEqual(at(again), route, `${href} -> ${again}`);
  return route;
}

Deno.test("parseRoute(): / is the chat with nothing chosen", () => {
  assert.deepEqual(at("/"), HOME);
  assert.equal(routeHref(HOME), "/");
  assert.equal(routeHref(roundTrip("/")), "/");
});

Deno.test("parseRoute(): / keeps the conversation and the run", () => {
  const r = roundTrip("/?c=conv_1&run=run_2");
  assert.deepEqual(r, { ...HOME, conversation: "conv_1", run: "run_2" });
  assert.equal(routeHref(r), "/?c=conv_1&run=run_2");
});

Deno.test("parseRoute(): /h/{id} is the Overview and writes back without the tab", () => {
  const r = roundTrip("/h/hello");
  assert.deepEqual(r, { ...HOME, harness: "hello", tab: "overview" });
  assert.equal(routeHref(r), "/h/hello");
  // The overview tab spelt out reads the same and writes back short.
  const spelt = roundTrip("/h/hello/overview");
  assert.deepEqual(spelt, r);
  assert.equal(routeHref(spelt), "/h/hello");
});

Deno.test("parseRoute(): every tab reads back from its own address", () => {
  for (const { id } of TABS) {
    const href = id === "overview" ? "/h/hello?c=c1" : `/h/hello/${id}?c=c1`;
    const r = roundTrip(href);
    assert.equal(r.page, "workbench");
    assert.equal(r.harness, "hello");
    assert.equal(r.tab, id);
    assert.equal(r.conversation, "c1");
    assert.equal(routeHref(r), href);
  }
});

Deno.test("parseRoute(): /settings/memory and /settings are the memory page", () => {
  const r = roundTrip("/settings/memory?scope=global&q=refund&m=mem_1&c=c9");
  assert.equal(r.page, "memory");
  assert.equal(r.harness, null);
  assert.equal(r.conversation, "c9");
  assert.deepEqual(r.query, { scope: "global", q: "refund", m: "mem_1" });
  assert.equal(routeHref(r), "/settings/memory?c=c9&scope=global&q=refund&m=mem_1");
  const short = at("/settings");
  assert.equal(short?.page, "memory");
  assert.equal(routeHref(short!), "/settings/memory");
});

Deno.test("parseRoute(): every query key is kept, empty and unknown keys are not", () => {
  const r = roundTrip(
    "/h/hello/trace?c=c1&run=r1&status=error&before=2025-01-01&p=prop_1&seq=7&types=model_call" +
      "&scope=global&q=x&m=mem_1&unknown=1&status2=x",
  );
  assert.equal(r.conversation, "c1");
  assert.equal(r.run, "r1");
  assert.deepEqual(r.query, {
    status: "error",
    before: "2025-01-01",
    p: "prop_1",
    seq: "7",
    types: "model_call",
    scope: "global",
    q: "x",
    m: "mem_1",
  });
  // c and run are fields of their own, never query keys.
  assert.equal("c" in r.query, false);
  assert.equal("run" in r.query, false);
  const href = routeHref(r);
  assert.doesNotMatch(href, /unknown|status2/);
  const empty = at("/h/hello/runs?status=&c=&run=");
  assert.deepEqual(empty, { ...HOME, harness: "hello", tab: "runs" });
});

Deno.test("parseRoute(): query values with reserved characters survive the round trip", () => {
  const r = roundTrip("/settings/memory?q=" + encodeURIComponent("a&b=c #d/é"));
  assert.equal(r.query.q, "a&b=c #d/é");
});

Deno.test("parseRoute(): unknown paths and tabs are null", () => {
  for (
    const href of [
      "/h",
      "/h/",
      "/h/hello/nope",
      "/h/hello/Runs",
      "/h/hello/trace/extra",
      "/h/hello/runs/x/y",
      "/settings/other",
      "/settings/memory/x",
      "/x",
      "/api",
      "/static/client.js",
      "/hello",
      "/index.html",
    ]
  ) {
    assert.equal(at(href), null, href);
  }
});

Deno.test("parseRoute(): bad percent-encoding is null, not a throw", () => {
  for (const href of ["/h/%E0%A4%A", "/h/%ZZ", "/h/hello/%", "/%C3%28"]) {
    assert.equal(at(href), null, href);
  }
});

Deno.test("routeHref(): harness ids are encoded and decode back", () => {
  for (const id of ["a b", "a/b", "ü-id", "x?y#z", "50%", "a&b"]) {
    const route: Route = { ...HOME, harness: id, tab: "spec" };
    const href = routeHref(route);
    assert.equal(href, `/h/${encodeURIComponent(id)}/spec`);
    assert.deepEqual(at(href), route, href);
  }
  // An encoded id in an address decodes to the id.
  assert.equal(at("/h/my%20harness/runs")?.harness, "my harness");
});

Deno.test("routeHref(): the memory page has no harness segment", () => {
  assert.equal(
    routeHref({ ...HOME, page: "memory", harness: "hello", tab: "runs" }),
    "/settings/memory",
  );
});

const TRACE: Route = {
  page: "workbench",
  harness: "hello",
  tab: "trace",
  conversation: "c1",
  run: "run_1",
  query: { seq: "4", types: "model_call" },
};

Deno.test("withRoute(): another harness drops the run, the tab and its choices", () => {
  const r = withRoute(TRACE, { harness: "other" });
  assert.deepEqual(r, {
    page: "workbench",
    harness: "other",
    tab: "overview",
    conversation: "c1",
    run: null,
    query: {},
  });
  // Choosing the tab at the same time keeps the chosen tab (still without the old choices).
  const runs = withRoute(TRACE, { harness: "other", tab: "runs", query: { status: "error" } });
  assert.equal(runs.tab, "runs");
  assert.equal(runs.run, null);
  assert.deepEqual(runs.query, { status: "error" });
  // A run given with the harness change is the new run.
  assert.equal(withRoute(TRACE, { harness: "other", run: "run_9" }).run, "run_9");
});

Deno.test("withRoute(): another tab drops the tab's choices but keeps the run", () => {
  const r = withRoute(TRACE, { tab: "runs" });
  assert.equal(r.tab, "runs");
  assert.equal(r.harness, "hello");
  assert.equal(r.run, "run_1");
  assert.equal(r.conversation, "c1");
  assert.deepEqual(r.query, {});
});

Deno.test("withRoute(): another page drops the tab's choices", () => {
  const r = withRoute(TRACE, { page: "memory", query: { scope: "global" } });
  assert.equal(r.page, "memory");
  assert.deepEqual(r.query, { scope: "global" });
});

Deno.test("withRoute(): the same harness and tab keep the run and the choices", () => {
  const same = withRoute(TRACE, { harness: "hello", tab: "trace", query: { seq: "5" } });
  assert.equal(same.run, "run_1");
  assert.deepEqual(same.query, { seq: "5", types: "model_call" });
  const conv = withRoute(TRACE, { conversation: "c2" });
  assert.deepEqual(conv, { ...TRACE, conversation: "c2" });
  const run = withRoute(TRACE, { run: "run_2" });
  assert.deepEqual(run, { ...TRACE, run: "run_2" });
  // The route it started from is not changed.
  assert.deepEqual(TRACE.query, { seq: "4", types: "model_call" });
  assert.equal(routeHref(same), "/h/hello/trace?c=c1&run=run_1&seq=5&types=model_call");
});

Deno.test("a thread's conversation is Runs with ?thread=; the server loads the thread, not the list", () => {
  const r = roundTrip("/h/hello/runs?thread=thr_01J0000000000000000000000A&status=error");
  assert.deepEqual(r, {
    ...HOME,
    harness: "hello",
    tab: "runs",
    query: { thread: "thr_01J0000000000000000000000A", status: "error" },
  });
  const wanted = pagePaths(r);
  assert.ok(wanted.includes(paths.thread("thr_01J0000000000000000000000A")));
  assert.equal(wanted.some((p) => p.startsWith(paths.runsOf("hello"))), false);
  // Back to all runs keeps the filter; another tab (Trace of a turn) drops the thread.
  const back = withRoute(r, { query: { thread: "" } });
  assert.equal(routeHref(back), "/h/hello/runs?status=error");
  assert.equal(
    routeHref(withRoute(r, { tab: "trace", run: "run_1" })),
    "/h/hello/trace?run=run_1",
  );
  assert.ok(pagePaths(back).includes(paths.runs("hello", "error")));
});
