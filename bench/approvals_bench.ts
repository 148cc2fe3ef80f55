/**
 * A tool approval's round trip on the control plane: a streamed `POST /run` whose tool call needs a
 * person's decision — from the request to the `approval_requested` frame, the decision
 * (`POST /approvals/{id}`, by another key) and from the decision to the run's end — beside the same
 * streamed run of a harness without approvals on a second control plane, taking turns run by run
 * (medians of 7 rounds of 20). The difference is what the approval costs beyond the person's time:
 * the request's hive row and journal lines, the run held without its slot, and the decision's write.
 *
 * @module
 */

import { generateKey } from "../lib/keys/key_files.ts";
import { authorizeKey } from "../lib/keys/key_store.ts";
import { signToken } from "../lib/keys/tokens.ts";
import { fmt, report } from "./measure.ts";
import { type RunPlane, startRunPlane } from "./run_plane.ts";
import { runAlone } from "./temp_dirs.ts";
import { median } from "./wrk.ts";

const ROUNDS = 7;
const PER_ROUND = 20;

// deno-lint-ignore no-explicit-any
type Json = any;

/** Reads a server-sent event stream's `trace` frames, one event at a time. */
async function* traceEvents(res: Response): AsyncGenerator<Json> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of res.body!) {
    buf += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      const data = block.split("\n").find((l) => l.startsWith("data: "));
      if (block.includes("event: trace") && data) yield JSON.parse(data.slice(6));
    }
  }
}

/** Starts a streamed run. */
function streamRun(plane: RunPlane): Promise<Response> {
  return fetch(`${plane.base}/run?stream=true`, {
    method: "POST",
    headers: { ...plane.headers, "content-type": "application/json" },
    body: JSON.stringify({ input: "hello" }),
  });
}

/** The phases of one run with an approval, in ms. */
interface Phases {
  asked: number;
  decision: number;
  after: number;
  whole: number;
}

/** One run through its approval, decided by `decider`. */
async function approvedRun(plane: RunPlane, decider: string): Promise<Phases> {
  const t0 = performance.now();
  const events = traceEvents(await streamRun(plane));
  let asked = 0, decided = 0, last = "";
  for await (const event of events) {
    last = event.type;
    if (event.type !== "approval_requested") continue;
    asked = performance.now();
    const { approval_id, arguments_hash } = event.payload;
    const res = await fetch(`${plane.base}/approvals/${approval_id}`, {
      method: "POST",
      headers: { authorization: `Bearer ${decider}`, "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve", arguments_hash }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`POST /approvals: ${res.status}`);
    decided = performance.now();
  }
  if (!asked || last !== "run_finished") throw new Error(`no approval round trip (${last})`);
  const end = performance.now();
  return { asked: asked - t0, decision: decided - asked, after: end - decided, whole: end - t0 };
}

/** One streamed run to its end. */
async function plainRun(plane: RunPlane): Promise<number> {
  const t0 = performance.now();
  let last = "";
  for await (const event of traceEvents(await streamRun(plane))) last = event.type;
  if (last !== "run_finished") throw new Error(`the run did not finish (${last})`);
  return performance.now() - t0;
}

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const guarded = await startRunPlane("fw-bench-approvals-", 4, {
    approvals: { tools: ["list_files"] },
  });
  const plain = await startRunPlane("fw-bench-approvals-plain-", 4);
  try {
    const key = await generateKey("decider", `${guarded.home}/keys`);
    await authorizeKey(
      `${guarded.dir}/.framework/authorized_keys.json`,
      "decider",
      key.public_key,
      ["read", "mutate"],
    );
    const { token } = await signToken({ keyPath: key.path, scopes: ["read", "mutate"], ttl: 3600 });
    for (let i = 0; i < 5; i++) await approvedRun(guarded, token), await plainRun(plain);
    const phases: Phases[] = [];
    const plains: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < PER_ROUND; i++) {
        if ((round + i) % 2) plains.push(await plainRun(plain));
        phases.push(await approvedRun(guarded, token));
        if (!((round + i) % 2)) plains.push(await plainRun(plain));
      }
    }
    const p50 = (k: keyof Phases) => median(phases.map((p) => p[k]));
    const base = median(plains);
    report("streamed run, no approval (p50)", { whole: fmt(base, " ms") });
    report("streamed run with one approval (p50)", {
      whole: fmt(p50("whole"), " ms"),
      "to the request": fmt(p50("asked"), " ms"),
      "the decision": fmt(p50("decision"), " ms"),
      "decision to end": fmt(p50("after"), " ms"),
      "round trip adds": fmt(p50("whole") - base, " ms"),
    });
  } finally {
    await guarded.server.stop();
    await plain.server.stop();
  }
}

if (import.meta.main) await runAlone(run);
