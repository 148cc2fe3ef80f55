/**
 * A long-running client must not grow the control plane: 15,000 `GET /health` and 2,000
 * authenticated `GET /stats` against the real server process, with its resident memory read from
 * `/proc` before and after. (`node:sqlite` keeps every statement `prepare()` made until the connection
 * closes; statements are prepared once per connection.)
 *
 * @module
 */

import assert from "node:assert/strict";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

/** Resident set size of a process in MB, from /proc. */
async function rssMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kb / 1024;
}

/** Sends `n` requests, `parallel` at a time, and checks each answers 200. */
async function flood(url: string, n: number, parallel: number, headers: HeadersInit = {}) {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const res = await fetch(url, { headers });
      await res.body?.cancel();
      assert.equal(res.status, 200);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

Deno.test({
  name: "control plane: memory stays flat over 15,000 /health and 2,000 /stats",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using home = await tempDir();
    await using root = await tempDir();
    const dir = await writeHarness(root.path, "steady", { model: scripted([{ text: "ok" }]) });
    const { token } = await memberToken(dir, home.path, "reader", ["read"]);
    await using plane = await startControlPlane(dir, { home: home.path });
    const auth = { authorization: `Bearer ${token}` };
    // Warm up: code paths compiled, caches filled, the heap at its working size.
    await flood(`${plane.url}/health`, 1_000, 8);
    await flood(`${plane.url}/stats`, 200, 8, auth);
    const before = await rssMb(plane.pid);
    await flood(`${plane.url}/health`, 15_000, 8);
    await flood(`${plane.url}/stats`, 2_000, 8, auth);
    const after = await rssMb(plane.pid);
    assert.ok(
      after - before < 30,
      `RSS grew ${(after - before).toFixed(1)} MB (${before.toFixed(1)} → ${after.toFixed(1)})`,
    );
  },
});
