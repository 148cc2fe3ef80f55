/**
 * HTTP load with a real load generator: `wrk` (installed from Debian's packages when missing, never
 * downloaded from elsewhere), its figures parsed into requests per second and p50/p99 latency.
 *
 * @module
 */

import { aptInstall, onPath } from "../scripts/apt.ts";

/** What one `wrk` run measured. */
export interface WrkResult {
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** Non-2xx/3xx answers and socket errors (a correct run has none). */
  errors: number;
  /** CPU `wrk` itself used, user + system, milliseconds (when measured). */
  cpu_ms?: number;
}

let ensured: Promise<string> | undefined;

/**
 * The path of `wrk`, installing Debian's package when it is missing (as root, or through sudo).
 *
 * @returns The executable.
 */
export function ensureWrk(): Promise<string> {
  ensured ??= (async () => {
    const found = onPath("wrk", Deno.env);
    if (found) return found;
    const { failure } = await aptInstall(["wrk"], "The HTTP benchmarks need wrk", {
      env: Deno.env,
      root: Deno.uid() === 0,
      say: (line) => console.log(`  (${line})`),
    });
    if (failure) throw new Error(`cannot install wrk: ${failure}`);
    const installed = onPath("wrk", Deno.env);
    if (!installed) throw new Error("wrk is still missing after apt-get install");
    return installed;
  })();
  return ensured;
}

/**
 * Runs `wrk` against one URL.
 *
 * @param url The URL (127.0.0.1 only).
 * @param connections Connections kept open (and requests in flight).
 * @param seconds How long.
 * @param headers Request headers.
 * @param post A JSON body to POST (default: GET).
 * @param tokens Bearer tokens to send in turn, one a request (default: `headers` alone).
 * @returns The figures.
 */
export async function wrk(
  url: string,
  connections: number,
  seconds: number,
  headers: Record<string, string> = {},
  post?: string,
  tokens?: string[],
): Promise<WrkResult> {
  const exe = await ensureWrk();
  let lua = "";
  if (post !== undefined) {
    lua += `wrk.method = "POST"\nwrk.body = ${JSON.stringify(post)}\n` +
      `wrk.headers["Content-Type"] = "application/json"\n`;
  }
  if (tokens?.length) {
    // One token after another, a request each (JSON strings are Lua strings: base64url and dots).
    lua += `local tokens = {${tokens.map((t) => JSON.stringify(t)).join(",")}}\nlocal i = 0\n` +
      `request = function()\n  i = i % #tokens + 1\n  local h = {}\n` +
      `  for k, v in pairs(wrk.headers) do h[k] = v end\n` +
      `  h["Authorization"] = "Bearer " .. tokens[i]\n  return wrk.format(nil, nil, h)\nend\n`;
  }
  let script: string | undefined;
  if (lua) {
    script = await Deno.makeTempFile({ suffix: ".lua" });
    await Deno.writeTextFile(script, lua);
  }
  const args = [
    ...(script ? ["-s", script] : []),
    "-t",
    "1",
    "-c",
    String(connections),
    "-d",
    `${seconds}s`,
    "--latency",
    ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]),
    url,
  ];
  // Through `sh`, which then prints its own /proc stat: its children's CPU (cutime, cstime) is wrk's.
  const out = await new Deno.Command("sh", {
    args: ["-c", '"$0" "$@" && read s < /proc/$$/stat && echo "wrk-cpu: $s"', exe, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output()
    .finally(() => script && Deno.remove(script).catch(() => {}));
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) throw new Error(`wrk failed: ${new TextDecoder().decode(out.stderr)}`);
  return { ...parseWrk(text), ...wrkCpu(text) };
}

/** wrk's CPU from the `wrk-cpu:` line (its shell's `/proc` stat: cutime and cstime, in ticks). */
function wrkCpu(text: string): { cpu_ms?: number } {
  const stat = /^wrk-cpu: (.*)$/m.exec(text)?.[1];
  if (!stat) return {};
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the name: field 3 (state) is f[0]; cutime and cstime are fields 16 and 17.
  return { cpu_ms: (Number(f[13]) + Number(f[14])) * 10 };
}

/**
 * Parses `wrk --latency` output.
 *
 * @param text Its standard output.
 * @returns The figures.
 */
export function parseWrk(text: string): WrkResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN);
  const latency = (q: string) => {
    const m = new RegExp(`^\\s+${q}%\\s+([\\d.]+)(us|ms|s)\\b`, "m").exec(text);
    if (!m) return NaN;
    const n = Number(m[1]);
    return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n;
  };
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  return { rps, p50_ms: latency("50"), p99_ms: latency("99"), errors: non2xx + socketErrors };
}

/** The median of a list of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Loads A and B alternately `rounds` times at one connection count and returns the medians of each,
 * so drift on a shared machine touches both sides alike.
 *
 * @param a The first side (URL and headers).
 * @param b The second side.
 * @param connections Connections.
 * @param rounds Rounds (medians of this many).
 * @param seconds Seconds per run.
 * @returns The medians of A and of B.
 */
export async function interleaved(
  a: Target,
  b: Target,
  connections: number,
  rounds = 5,
  seconds = 2,
): Promise<{ a: WrkResult; b: WrkResult }> {
  const [ra, rb] = await interleavedAll([a, b], connections, rounds, seconds);
  return { a: ra!, b: rb! };
}

/** One side of a comparison: a URL, its headers, and a JSON body to POST (default: GET). */
export interface Target {
  url: string;
  headers?: Record<string, string>;
  post?: string;
  /** Bearer tokens sent in turn, one a request (the `Authorization` header then comes from here). */
  tokens?: string[];
}

/**
 * Loads every target in turn, `rounds` times over, and returns each one's medians.
 *
 * @param targets The sides.
 * @param connections Connections.
 * @param rounds Rounds (medians of this many).
 * @param seconds Seconds per run.
 * @returns The medians, in the targets' order.
 */
export async function interleavedAll(
  targets: Target[],
  connections: number,
  rounds = 5,
  seconds = 2,
): Promise<WrkResult[]> {
  const results: WrkResult[][] = targets.map(() => []);
  for (let i = 0; i < rounds; i++) {
    for (const [k, t] of targets.entries()) {
      // A server left with requests in flight when wrk stops (a peer's p99 is over a second at 64
      // connections) goes on working them off: the next target's round waits for the machine to be
      // quiet again, so each is measured alone.
      await quietMachine();
      results[k]!.push(await wrk(t.url, connections, seconds, t.headers, t.post, t.tokens));
    }
  }
  return results.map((list) => ({
    rps: median(list.map((r) => r.rps)),
    p50_ms: median(list.map((r) => r.p50_ms)),
    p99_ms: median(list.map((r) => r.p99_ms)),
    errors: list.reduce((n, r) => n + r.errors, 0),
  }));
}

/** The machine's busy and total CPU time so far (Linux `/proc/stat`), or undefined elsewhere. */
async function cpuTimes(): Promise<{ busy: number; total: number } | undefined> {
  try {
    const line = (await Deno.readTextFile("/proc/stat")).split("\n")[0]!;
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0); // idle, iowait
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

/**
 * Waits until the machine's cores are mostly idle (under 15 % busy over 100 ms), at most `maxMs`:
 * what a server under test still does after its load stopped must not be charged to the next one.
 *
 * @param maxMs The longest wait.
 */
export async function quietMachine(maxMs = 5_000): Promise<void> {
  const until = Date.now() + maxMs;
  while (Date.now() < until) {
    const a = await cpuTimes();
    if (!a) return;
    await new Promise((r) => setTimeout(r, 100));
    const b = await cpuTimes();
    if (!b || b.total === a.total || (b.busy - a.busy) / (b.total - a.total) < 0.15) return;
  }
}
