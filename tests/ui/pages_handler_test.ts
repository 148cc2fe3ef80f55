/**
 * The page handler (`routes/workbench_pages.tsx`) against a small fake workbench API: headers of the
 * pages, the state they embed, how the conversation and the harness are resolved, 404/405, the
 * assets' caching and the development boot stream.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createPages, PAGE_CSP, type PagesOptions } from "../../routes/workbench_pages.tsx";
import type { PageState } from "../../ui/page_state.ts";
import { pagePaths, paths } from "../../ui/paths.ts";
import { HOME, TABS } from "../../ui/route.ts";
import type {
  CatalogNode,
  Conversation,
  ConversationView,
  HarnessDetail,
  SpecView,
} from "../../ui/types.ts";

const ORIGIN = "http://127.0.0.1:8770";
const EVIL = "</script><script>alert(1)</script>";
const T = "2025-01-01T00:00:00.000Z";

function conversation(
  id: string,
  title: string,
  harness: string | null,
  run: string | null,
): Conversation {
  return {
    id,
    title,
    created_at: T,
    updated_at: T,
    selected_harness_id: harness,
    selected_run_id: run,
  };
}

/** Most recent first, as the API lists them. */
const CONVERSATIONS: Conversation[] = [
  conversation("conv_new", "Newest", "hello", "run_1"),
  conversation("conv_old", EVIL, null, null),
];

const CATALOG: CatalogNode[] = [{
  id: "hello",
  name: "Hello",
  root_path: "/tmp/harnesses/hello",
  is_fork: false,
  parent_id: null,
  valid: true,
  children: [],
}];

const HELLO: HarnessDetail = {
  id: "hello",
  dir: "/tmp/harnesses/hello",
  spec: { id: "hello", name: "Hello", model: { provider: "scripted", name: "starter" } },
  spec_version: "a".repeat(64),
  valid: true,
  trusted: false,
  peers: [],
  evolved: 0,
  spec_drift: false,
  stats: {
    harness_id: "hello",
    runs: {
      total: 0,
      running: 0,
      by_status: { success: 0, verify_failed: 0, guardrail_halt: 0, max_turns: 0, error: 0 },
      success_rate: null,
      cost_usd: 0,
      avg_turns: null,
      p50_duration_ms: null,
    },
    hive: { harnesses: 1, runs: 0 },
    recent_failures: [],
    failure_groups: [],
  } as HarnessDetail["stats"],
};

const SPEC: SpecView = { id: "hello", text: "id: hello\n", issues: [], frozen: ["model"] };

/** What the fake API answers, by path with query. */
function answers(conversations: Conversation[]): Map<string, unknown> {
  const out = new Map<string, unknown>([
    [paths.health(), { copilot: null, harnesses_dir: "/tmp/harnesses" }],
    [paths.conversations(), { conversations }],
    [paths.catalog(), { harnesses: CATALOG }],
    [paths.harness("hello"), HELLO],
    [paths.spec("hello"), SPEC],
    [paths.runs("hello"), { runs: [] }],
    [paths.proposals("hello"), { proposals: [] }],
    [paths.memories(), { memories: [] }],
    [paths.pendingApprovals(), { approvals: [], count: 0 }],
  ]);
  for (const c of conversations) {
    const view: ConversationView = {
      conversation: c,
      messages: [{
        id: `msg_${c.id}`,
        conversation_id: c.id,
        role: "assistant",
        content: `Hello from ${c.title}`,
        parts: [{ type: "text", text: `Hello from ${c.title}` }],
        run_id: null,
        created_at: T,
      }],
      artifacts: [],
      pending_run_id: null,
    };
    out.set(paths.conversation(c.id), view);
  }
  return out;
}

interface FakeApi extends AsyncDisposable {
  /** The API, as the pages call it in process. */
  fetch: (request: Request) => Response;
  /** Every request's path with query, and whether it came as a GET. */
  requests: { path: string; method: string }[];
}

/** A fake workbench API, called in process. */
function startFakeApi(conversations = CONVERSATIONS): FakeApi {
  const data = answers(conversations);
  const requests: FakeApi["requests"] = [];
  return {
    fetch(request) {
      const url = new URL(request.url);
      const path = url.pathname + url.search;
      requests.push({ path, method: request.method });
      if (!data.has(path)) {
        return Response.json(
          { ok: false, error: { kind: "not_found", message: `Nothing at ${path}` } },
          { status: 404 },
        );
      }
      return Response.json({ ok: true, data: data.get(path) });
    },
    requests,
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
}

function pagesFor(api: FakeApi, options: Partial<PagesOptions> = {}) {
  return createPages({ api: api.fetch, ...options });
}

const get = (pages: (r: Request) => Promise<Response>, path: string, init?: RequestInit) =>
  pages(new Request(ORIGIN + path, init));

/** The state a page embeds. */
function stateOf(html: string): PageState {
  const scripts = [
    ...html.matchAll(/<script type="application\/json" id="fw-state">([\s\S]*?)<\/script>/g),
  ];
  assert.equal(scripts.length, 1, "one state element");
  return JSON.parse(scripts[0]![1]!);
}

function assertHtmlHeaders(res: Response) {
  assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(res.headers.get("content-security-policy"), PAGE_CSP);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("referrer-policy"), "no-referrer");
}

Deno.test("pages: the CSP allows nothing from another origin and no inline script", () => {
  const directives = new Map(
    PAGE_CSP.split(";").map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k!, v]),
  );
  assert.deepEqual(directives.get("default-src"), ["'self'"]);
  assert.deepEqual(directives.get("script-src"), ["'self'"]);
  assert.deepEqual(directives.get("connect-src"), ["'self'"]);
  assert.deepEqual(directives.get("frame-ancestors"), ["'none'"]);
  assert.deepEqual(directives.get("base-uri"), ["'none'"]);
  for (const [k, v] of directives) {
    for (const source of v) {
      assert.match(source, /^('self'|'none'|'unsafe-inline'|data:)$/, `${k} ${source}`);
    }
  }
  assert.equal(directives.get("script-src")!.includes("'unsafe-inline'"), false);
});

Deno.test("pages: / picks the most recent conversation and its selected harness and run", async () => {
  await using api = startFakeApi();
  const pages = pagesFor(api);
  const res = await get(pages, "/");
  assert.equal(res.status, 200);
  assertHtmlHeaders(res);
  const html = await res.text();
  const state = stateOf(html);
  assert.deepEqual(state.route, {
    ...HOME,
    conversation: "conv_new",
    harness: "hello",
    run: "run_1",
  });
  assert.equal(state.dev, false);
  assert.deepEqual(state.health, { copilot: null, harnesses_dir: "/tmp/harnesses" });
  // The data is exactly what the islands ask for, by the same paths.
  assert.deepEqual(Object.keys(state.data).sort(), pagePaths(state.route).sort());
  assert.deepEqual(state.data[paths.harness("hello")], HELLO);
  // The islands are rendered in place, with the conversation's messages and the harness.
  for (const island of ["rail", "chat", "workspace", "notices"]) {
    assert.match(html, new RegExp(`data-island="${island}"`));
  }
  assert.doesNotMatch(html, /data-island="memory"/);
  assert.match(html, /Hello from Newest/);
  assert.match(html, /<title>hello · overview · Workbench<\/title>/);
  // Every request to the API is a read (the pages never change anything).
  assert.ok(api.requests.length >= 5);
  for (const r of api.requests) assert.equal(r.method, "GET", r.path);
  assert.deepEqual(
    api.requests.map((r) => r.path).sort(),
    [paths.health(), ...pagePaths(state.route)].sort(),
  );
});

Deno.test("pages: ?c= chooses the conversation; / then takes its (empty) selection", async () => {
  await using api = startFakeApi();
  const pages = pagesFor(api);
  const res = await get(pages, "/?c=conv_old");
  assert.equal(res.status, 200);
  const state = stateOf(await res.text());
  assert.deepEqual(state.route, { ...HOME, conversation: "conv_old" });
});

Deno.test("pages: a run in the address wins over the conversation's selected run", async () => {
  await using api = startFakeApi();
  const res = await get(pagesFor(api), "/?run=run_9");
  const state = stateOf(await res.text());
  assert.equal(state.route.conversation, "conv_new");
  assert.equal(state.route.harness, "hello");
  assert.equal(state.route.run, "run_9");
});

Deno.test("pages: a harness address keeps its harness, with the most recent conversation", async () => {
  await using api = startFakeApi();
  const pages = pagesFor(api);
  const res = await get(pages, "/h/hello/spec?c=conv_old");
  assert.equal(res.status, 200);
  const html = await res.text();
  const state = stateOf(html);
  assert.deepEqual(state.route, {
    ...HOME,
    conversation: "conv_old",
    harness: "hello",
    tab: "spec",
  });
  assert.deepEqual(state.data[paths.spec("hello")], SPEC);
  assert.match(html, /<title>hello · spec · Workbench<\/title>/);

  // Without ?c= the most recent conversation, but not its selected run.
  const res2 = await get(pages, "/h/hello/runs");
  const state2 = stateOf(await res2.text());
  assert.deepEqual(state2.route, {
    ...HOME,
    conversation: "conv_new",
    harness: "hello",
    tab: "runs",
  });
});

Deno.test("pages: an unknown conversation stays in the route and the page still renders", async () => {
  await using api = startFakeApi();
  const res = await get(pagesFor(api), "/?c=conv_gone");
  assert.equal(res.status, 200);
  const state = stateOf(await res.text());
  assert.deepEqual(state.route, { ...HOME, conversation: "conv_gone" });
  assert.equal(paths.conversation("conv_gone") in state.data, false);
});

Deno.test("pages: with no conversation yet, / has nothing selected", async () => {
  await using api = startFakeApi([]);
  const res = await get(pagesFor(api), "/");
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.deepEqual(stateOf(html).route, HOME);
  assert.match(html, /No harness selected/);
});

Deno.test("pages: every address of every page kind renders", async () => {
  await using api = startFakeApi();
  const pages = pagesFor(api);
  const hrefs = [
    "/",
    "/settings",
    "/settings/memory",
    ...TABS.map((t) => `/h/hello/${t.id}`),
    "/h/hello/trace?run=run_1&seq=2",
    "/h/hello/runs?status=error",
  ];
  for (const href of hrefs) {
    const res = await get(pages, href);
    assert.equal(res.status, 200, href);
    assertHtmlHeaders(res);
    const html = await res.text();
    const state = stateOf(html);
    assert.equal(state.route.page, href.startsWith("/settings") ? "memory" : "workbench", href);
    assert.match(html, /^<!doctype html>/);
    assert.match(
      html,
      /<script type="module" src="\/static\/client\.js\?v=[0-9a-f]{12}"><\/script>/,
    );
    assert.match(html, /<link rel="stylesheet" href="\/static\/app\.css\?v=[0-9a-f]{12}">/);
  }
  const memory = await (await get(pages, "/settings/memory")).text();
  assert.match(memory, /data-island="memory"/);
  assert.doesNotMatch(memory, /data-island="chat"/);
  assert.equal(stateOf(memory).route.conversation, "conv_new");
});

Deno.test("pages: a harness the API does not know is a 404 page that still renders", async () => {
  await using api = startFakeApi();
  const pages = pagesFor(api);
  for (const href of ["/h/ghost", "/h/ghost/trace"]) {
    const res = await get(pages, href);
    assert.equal(res.status, 404, href);
    assertHtmlHeaders(res);
    const html = await res.text();
    const state = stateOf(html);
    assert.equal(state.route.harness, "ghost");
    assert.equal(paths.harness("ghost") in state.data, false);
    assert.match(html, /data-island="workspace"/);
    assert.match(html, /<code class="ws-id">ghost<\/code>/);
    // The page says so before any script runs, with the API's words.
    assert.equal(state.errors?.[paths.harness("ghost")]?.status, 404);
    assert.match(html, /No harness “ghost”/);
    assert.match(html, /Nothing at \/api\/harnesses\/ghost/);
    assert.doesNotMatch(html, /Loading the harness/);
  }
  // Another path of a known harness that fails does not make the page a 404.
  const res = await get(pages, "/h/hello/improve?status=nope");
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("pages: an unknown path is a 404 HTML page that escapes the path", async () => {
  await using api = startFakeApi();
  const pages = pagesFor(api);
  for (const path of ["/nope", "/h/hello/nope", "/h/%ZZ", "/x%3Cscript%3E"]) {
    const res = await get(pages, path);
    assert.equal(res.status, 404, path);
    assertHtmlHeaders(res);
    const html = await res.text();
    assert.match(html, /Nothing at/);
    assert.doesNotMatch(html, /<script/i);
    assert.doesNotMatch(html, /fw-state/);
  }
  const res = await get(pages, "/<b>x</b>");
  const html = await res.text();
  assert.equal(res.status, 404);
  assert.doesNotMatch(html, /<b>x/);
  // Nothing was asked of the API for addresses that do not exist.
  assert.deepEqual(api.requests, []);
});

Deno.test("pages: writes are refused with 405", async () => {
  await using api = startFakeApi();
  const pages = pagesFor(api);
  for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
    for (const path of ["/", "/h/hello", "/static/client.js", "/nope"]) {
      const res = await get(pages, path, { method, body: method === "DELETE" ? undefined : "x" });
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get("allow"), "GET, HEAD");
      await res.body?.cancel();
    }
  }
  assert.deepEqual(api.requests, []);
});

async function sha12(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")
    .slice(0, 12);
}

Deno.test("pages: the script and styles are immutable under their hash, no-cache otherwise", async () => {
  await using api = startFakeApi();
  const pages = pagesFor(api);
  const html = await (await get(pages, "/h/hello")).text();
  const jsUrl = /src="(\/static\/client\.js\?v=[0-9a-f]{12})"/.exec(html)![1]!;
  const cssUrl = /href="(\/static\/app\.css\?v=[0-9a-f]{12})"/.exec(html)![1]!;

  for (
    const [url, type] of [
      [jsUrl, "text/javascript; charset=utf-8"],
      [cssUrl, "text/css; charset=utf-8"],
    ] as const
  ) {
    const res = await get(pages, url);
    assert.equal(res.status, 200, url);
    assert.equal(res.headers.get("content-type"), type);
    assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    const body = await res.text();
    assert.ok(body.length > 0);
    // The version is the hash of what is served.
    assert.equal(new URL(url, ORIGIN).searchParams.get("v"), await sha12(body));

    const path = new URL(url, ORIGIN).pathname;
    for (const other of [path, `${path}?v=000000000000`, `${path}?v=`, `${path}?x=1`]) {
      const r = await get(pages, other);
      assert.equal(r.status, 200, other);
      assert.equal(r.headers.get("content-type"), type, other);
      assert.equal(r.headers.get("cache-control"), "no-cache", other);
      assert.equal(await r.text(), body, other);
    }
  }
});

Deno.test("pages: assets given in the options are served under their own hash", async () => {
  await using api = startFakeApi();
  const js = "console.log('dev build');";
  const css = "body{color:red}";
  const pages = pagesFor(api, { assets: { js, css } });
  const html = await (await get(pages, "/")).text();
  assert.match(html, new RegExp(`/static/client\\.js\\?v=${await sha12(js)}"`));
  assert.match(html, new RegExp(`/static/app\\.css\\?v=${await sha12(css)}"`));
  const res = await get(pages, `/static/client.js?v=${await sha12(js)}`);
  assert.equal(await res.text(), js);
  assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
  const res2 = await get(pages, "/static/app.css");
  assert.equal(await res2.text(), css);
  assert.equal(res2.headers.get("cache-control"), "no-cache");
});

Deno.test("pages: /_dev/boot is a 404 page unless in development", async () => {
  await using api = startFakeApi();
  const res = await get(pagesFor(api), "/_dev/boot");
  assert.equal(res.status, 404);
  assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
  assert.match(await res.text(), /Nothing at \/_dev\/boot/);
});

/** The first frame of a boot stream (the body is cancelled afterwards). */
async function firstBootFrame(res: Response): Promise<string> {
  const reader = res.body!.getReader();
  try {
    const { value } = await reader.read();
    return new TextDecoder().decode(value);
  } finally {
    await reader.cancel();
  }
}

Deno.test("pages: in development /_dev/boot streams this launch's boot id", async () => {
  await using api = startFakeApi();
  const pages = pagesFor(api, { dev: true });
  const res = await get(pages, "/_dev/boot");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  assert.equal(res.headers.get("cache-control"), "no-store");
  const frame = await firstBootFrame(res);
  const m = /^retry: \d+\nevent: boot\ndata: ([0-9a-f-]{36})\n\n$/.exec(frame);
  assert.ok(m, JSON.stringify(frame));
  // The same handler always says the same id; another launch another one.
  assert.equal(await firstBootFrame(await get(pages, "/_dev/boot")), frame);
  const other = await firstBootFrame(await get(pagesFor(api, { dev: true }), "/_dev/boot"));
  assert.notEqual(other, frame);
  assert.match(other, /event: boot\n/);
  // The pages say they are a development checkout.
  const state = stateOf(await (await get(pages, "/")).text());
  assert.equal(state.dev, true);
});

Deno.test("pages: an aborted boot stream ends", async () => {
  await using api = startFakeApi();
  const pages = pagesFor(api, { dev: true });
  const abort = new AbortController();
  const res = await get(pages, "/_dev/boot", { signal: abort.signal });
  const reader = res.body!.getReader();
  assert.match(new TextDecoder().decode((await reader.read()).value), /event: boot/);
  abort.abort();
  assert.equal((await reader.read()).done, true);
});

Deno.test("pages: </script> in the API's data cannot break out of the state element", async () => {
  await using api = startFakeApi();
  const res = await get(pagesFor(api), "/?c=conv_old");
  assert.equal(res.status, 200);
  const html = await res.text();
  // Only the module script and the state: nothing from the data became a script element.
  const scripts = [...html.matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]);
  assert.deepEqual(scripts, [
    scripts[0]!,
    '<script type="application/json" id="fw-state">',
  ]);
  assert.match(scripts[0]!, /^<script type="module" src="\/static\/client\.js\?v=[0-9a-f]{12}">$/);
  assert.doesNotMatch(html, /<script>alert/);
  // The value reads back whole from the state.
  const state = stateOf(html);
  const conversations = state.data[paths.conversations()] as { conversations: Conversation[] };
  assert.equal(conversations.conversations[1]!.title, EVIL);
  const view = state.data[paths.conversation("conv_old")] as ConversationView;
  assert.equal(view.messages[0]!.content, `Hello from ${EVIL}`);
  // Shown on the page as text.
  assert.match(html, /&lt;\/script>&lt;script>alert\(1\)&lt;\/script>/);
});

Deno.test("pages: an API that does not answer gives a 502 page that says what to do", async () => {
  // An API that fails instead of answering.
  const pages = createPages({
    api: () => Promise.reject(new Error("the API is gone")),
  });
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void errors.push(args);
  try {
    const res = await get(pages, "/h/hello");
    assert.equal(res.status, 502);
    assertHtmlHeaders(res);
    const html = await res.text();
    assert.match(html, /restart `framework workbench`|restart <code>framework workbench<\/code>/);
    const state = stateOf(html);
    assert.equal(state.errors?.[paths.harness("hello")]?.kind, "unavailable");
  } finally {
    console.error = original;
  }
  assert.ok(errors.length > 0, "the failure is logged");
});

Deno.test("pages: assets and pages are gzipped when the browser accepts it, plain otherwise", async () => {
  await using api = startFakeApi();
  const pages = pagesFor(api);
  const gunzip = async (res: Response) =>
    await new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).text();
  const plain = await get(pages, "/static/client.js");
  assert.equal(plain.headers.get("content-encoding"), null);
  assert.equal(plain.headers.get("vary"), "Accept-Encoding");
  const js = await plain.text();
  const zipped = await get(pages, "/static/client.js", {
    headers: { "accept-encoding": "gzip, deflate, br" },
  });
  assert.equal(zipped.headers.get("content-encoding"), "gzip");
  assert.equal(zipped.headers.get("content-type"), "text/javascript; charset=utf-8");
  assert.equal(await gunzip(zipped), js);
  const refused = await get(pages, "/static/app.css", {
    headers: { "accept-encoding": "gzip;q=0" },
  });
  assert.equal(refused.headers.get("content-encoding"), null);
  await refused.body?.cancel();
  const page = await get(pages, "/", { headers: { "accept-encoding": "gzip" } });
  assertHtmlHeaders(page);
  assert.equal(page.headers.get("content-encoding"), "gzip");
  assert.match(await gunzip(page), /<!doctype html>/i);
});
