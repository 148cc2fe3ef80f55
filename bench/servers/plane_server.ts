/**
 * The control plane of a harness, served in-process for the benchmark (request log off).
 * Usage: plane_server.ts <harness-dir>
 */
import { authorizedKeysPath } from "../../lib/paths.ts";
import { createControlPlane } from "../../routes/control_plane.ts";

const dir = Deno.args[0]!;
const plane = await createControlPlane({
  harnessDir: dir,
  storePath: authorizedKeysPath(dir),
  log: null,
});
Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen: ({ port }) => console.log(port) },
  plane.fetch,
);
