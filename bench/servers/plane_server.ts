/**
 * The control plane of a harness, served in-process for the benchmark, with its request log on (to
 * stderr, which the benchmark reads and discards).
 * Usage: plane_server.ts <harness-dir> [max-concurrent-runs] [max-queued-runs]
 *
 * With `--expose-gc` in the V8 flags, `GET /__bench/memory` collects garbage and answers the
 * process's memory figures, so a benchmark can tell retained memory from garbage not yet collected.
 * `GET /__bench/flushes` answers the group commit's counters (`lib/fs/group_flush.ts`): how many
 * flushes the runs asked for and how many were made.
 */
import { flushCounts } from "../../lib/fs/group_flush.ts";
import { bridgeCounts } from "../../lib/pg/connection.ts";
import { authorizedKeysPath } from "../../lib/paths.ts";
import { trustGate } from "../../lib/trust/trust_gate.ts";
import { createControlPlane } from "../../routes/control_plane.ts";

const dir = await Deno.realPath(Deno.args[0]!);
const plane = await createControlPlane({
  trusted: await trustGate(dir, { approve: true }),
  storePath: authorizedKeysPath(dir),
  ...(Deno.args[1] ? { maxConcurrentRuns: Number(Deno.args[1]) } : {}),
  ...(Deno.args[2] ? { maxQueuedRuns: Number(Deno.args[2]) } : {}),
});
const gc = (globalThis as { gc?: () => void }).gc;
Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(port) },
  (request) => {
    // Every other request goes to the plane as `framework control-plane` serves it, with nothing
    // added: the benchmark's own paths are looked for only in URLs that name them.
    if (!request.url.includes("/__bench/")) return plane.fetch(request);
    const path = new URL(request.url).pathname;
    if (path === "/__bench/flushes") return Response.json(flushCounts());
    if (path === "/__bench/pg") return Response.json(bridgeCounts());
    if (gc && path === "/__bench/memory") {
      gc();
      return Response.json(Deno.memoryUsage());
    }
    return plane.fetch(request);
  },
);
