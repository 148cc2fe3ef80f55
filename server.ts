/**
 * The framework's HTTP servers, apart from the library (`mod.ts`): the control plane of one harness
 * and the workbench.
 *
 * @example Serve a harness on loopback
 * ```ts
 * import { createControlPlane } from "./server.ts";
 * import { trustGate } from "./mod.ts";
 *
 * const dir = await Deno.realPath("./harnesses/hello");
 * const plane = await createControlPlane({
 *   trusted: await trustGate(dir, { approve: true }),
 *   storePath: `${dir}/.framework/authorized_keys.json`,
 * });
 * Deno.serve({ hostname: "127.0.0.1", port: 8420 }, plane.fetch);
 * ```
 *
 * @module
 */

export { createControlPlane } from "./routes/control_plane.ts";
export type { ControlPlane, ControlPlaneOptions } from "./routes/control_plane.ts";
export { startWorkbench } from "./routes/workbench_server.ts";
export type { RunningWorkbench, WorkbenchOptions } from "./routes/workbench_server.ts";
