/**
 * The `deno run` flags the framework runs with, as a list for the places that write a launch line
 * themselves (the package's Dockerfile): its permissions (never `-A`), the worker option the
 * checkpointer needs and the V8 flags that keep a long-running server's heap near what it holds
 * (docs/performance.md). deno.json's `framework` task is the source; tests/docs/launch_flags_test.ts
 * holds this list equal to it.
 *
 * @module
 */

/** The flags of deno.json's `framework` task, in its order. */
export const FRAMEWORK_RUN_FLAGS: readonly string[] = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-net",
  "--allow-run",
  "--allow-sys",
  "--unstable-worker-options",
  "--v8-flags=--heap-growing-percent=25,--max-semi-space-size=8",
];
