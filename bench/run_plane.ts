/**
 * The control plane the run benchmarks load: a harness doing the peers' scripted task (two model
 * calls, one tool call), its key authorized with the `run` scope, served by `plane_server.ts` in a
 * process of its own with the framework's launch flags.
 *
 * @module
 */

import { stringify } from "yaml";
import { generateKey } from "../lib/keys/key_files.ts";
import { authorizeKey } from "../lib/keys/key_store.ts";
import { signToken } from "../lib/keys/tokens.ts";
import { frameworkFlags, type ServerProcess, startServer } from "./server_process.ts";
import { benchTempDir } from "./temp_dirs.ts";
import type { Target } from "./wrk.ts";

/** A served harness: its server, `POST /run` as a load target, and a token's headers. */
export interface RunPlane {
  server: ServerProcess;
  /** `POST /run` with `{"input": "hello"}`. */
  target: Target;
  /** `http://127.0.0.1:<port>`. */
  base: string;
  headers: Record<string, string>;
  /** The harness folder. */
  dir: string;
  /** The framework home (its keys in `keys/`). */
  home: string;
}

/**
 * Writes the scripted harness into a new home and serves it.
 *
 * @param prefix The temporary home's name prefix.
 * @param slots Runs at once (and queued), so that no load waits in the queue.
 * @param extra More harness fields (e.g. `approvals`).
 * @param scopes The key's scopes.
 * @returns The served harness.
 */
export async function startRunPlane(
  prefix: string,
  slots: number,
  extra: Record<string, unknown> = {},
  scopes: string[] = ["run"],
): Promise<RunPlane> {
  const home = await benchTempDir(prefix);
  const dir = `${home}/hello`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({
      id: "hello",
      model: {
        provider: "scripted",
        replies: [{ tool_calls: [{ name: "list_files", arguments: {} }] }, { text: "done" }],
      },
      tools: [{ builtin: "list_files" }],
      limits: { max_turns: 4 },
      ...extra,
    }),
  );
  const key = await generateKey("bench", `${home}/keys`);
  await authorizeKey(`${dir}/.framework/authorized_keys.json`, "bench", key.public_key, scopes);
  const { token } = await signToken({ keyPath: key.path, scopes, ttl: 3600 });
  const server = await startServer(
    "plane_server.ts",
    [dir, String(slots), String(slots)],
    home,
    await frameworkFlags(),
  );
  const base = `http://127.0.0.1:${server.port}`;
  const headers = { authorization: `Bearer ${token}` };
  const target = { url: `${base}/run`, headers, post: JSON.stringify({ input: "hello" }) };
  return { server, target, base, headers, dir, home };
}
