import assert from "node:assert/strict";
import { createApiCache } from "../../ui/store.ts";

/** A fake API: answers `{ok, data: {path, n}}` counting the calls per path, after `delay` ms. */
function fakeApi(delay = 0) {
  const calls = new Map<string, number>();
  const fetcher = async (path: string) => {
    const n = (calls.get(path) ?? 0) + 1;
    calls.set(path, n);
    if (delay) await new Promise((r) => setTimeout(r, delay));
    return Response.json({ ok: true, data: { path, n } });
  };
  return { calls, fetcher };
}

Deno.test("ApiCache: a seed serves the first render; a refreshed path hidden then shown loads anew", async () => {
  const api = fakeApi();
  const cache = createApiCache(api.fetcher, { "/api/runs": { seed: true } });
  assert.deepEqual(cache.entry("/api/runs").value.data, { seed: true });
  await cache.load("/api/runs");
  assert.equal(api.calls.get("/api/runs"), undefined, "the seed is current at first");
  // Shown, then left; the server changes it.
  const unmount = cache.mount("/api/runs");
  unmount();
  cache.refresh("/api/");
  assert.equal(api.calls.get("/api/runs"), undefined, "not shown: not loaded now");
  assert.deepEqual(cache.entry("/api/runs").value.data, { seed: true }, "kept until shown");
  await cache.load("/api/runs");
  assert.deepEqual(cache.entry("/api/runs").value.data, { path: "/api/runs", n: 1 });
  await cache.load("/api/runs");
  assert.equal(api.calls.get("/api/runs"), 1, "current again: no second load");
});

Deno.test("ApiCache: refresh reloads shown paths at once and only those under the prefixes", async () => {
  const api = fakeApi();
  const cache = createApiCache(api.fetcher);
  const paths = ["/api/harnesses/a", "/api/harnesses/a/runs", "/api/memories"];
  for (const p of paths) {
    cache.mount(p);
    await cache.load(p);
  }
  cache.refresh("/api/harnesses/a");
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(api.calls.get("/api/harnesses/a"), 2);
  assert.equal(api.calls.get("/api/harnesses/a/runs"), 2);
  assert.equal(api.calls.get("/api/memories"), 1);
});

Deno.test("ApiCache: a forced load during a load under way runs after it, so its answer is newer", async () => {
  const api = fakeApi(20);
  const cache = createApiCache(api.fetcher);
  const first = cache.load("/api/c");
  const plain = cache.load("/api/c");
  const forced = cache.load("/api/c", true);
  await Promise.all([first, plain, forced]);
  assert.equal(
    api.calls.get("/api/c"),
    2,
    "the plain load joined the first; the forced one followed",
  );
  assert.deepEqual(cache.entry("/api/c").value.data, { path: "/api/c", n: 2 });
  assert.equal(cache.entry("/api/c").value.loading, false);
});

Deno.test("ApiCache: a failed reload keeps what was shown beside the error", async () => {
  let fail = false;
  const cache = createApiCache((path) =>
    Promise.resolve(
      fail
        ? Response.json({ ok: false, error: { kind: "not_found", message: "gone" } }, {
          status: 404,
        })
        : Response.json({ ok: true, data: { path } }),
    )
  );
  await cache.load("/api/x");
  fail = true;
  await cache.load("/api/x", true);
  const e = cache.entry("/api/x").value;
  assert.deepEqual(e.data, { path: "/api/x" });
  assert.equal(e.error?.status, 404);
  assert.equal(e.error?.message, "gone");
});

Deno.test("ApiCache: an error from the server's render is there before any load", () => {
  const cache = createApiCache(() => Promise.reject(new Error("no")), {}, {
    "/api/harnesses/ghost": { status: 404, kind: "not_found", message: "Unknown harness" },
  });
  const e = cache.entry("/api/harnesses/ghost").value;
  assert.equal(e.error?.status, 404);
  assert.equal(e.loading, false);
});
