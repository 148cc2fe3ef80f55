import assert from "node:assert/strict";
import { threadRunPath } from "../../routes/control_plane/thread_routes.ts";
import { queryParam } from "../../lib/http/query_param.ts";

Deno.test("a thread's turn is answered before the router only for a plain /threads/{id}/run", () => {
  assert.equal(threadRunPath("/threads/thr_01ABC/run"), "thr_01ABC");
  for (
    const path of [
      "/threads//run",
      "/threads/run",
      "/threads/a/b/run",
      "/threads/thr%2F01/run", // decoded by the router, as every route's parameters are
      "/threads/thr_01ABC/runs",
      "/threads/thr_01ABC",
      "/run",
    ]
  ) assert.equal(threadRunPath(path), undefined, path);
});

Deno.test("queryParam reads a parameter, percent-decoded, or null", () => {
  assert.equal(queryParam(new Request("http://h/x?busy=queue&stream=true"), "stream"), "true");
  assert.equal(queryParam(new Request("http://h/x?q=a%20b"), "q"), "a b");
  assert.equal(queryParam(new Request("http://h/x"), "busy"), null);
  assert.equal(queryParam(new Request("http://h/x?other=1"), "busy"), null);
});
