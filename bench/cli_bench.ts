/**
 * `framework --help` and a verb's start, as whole processes, beside a bare Deno script that prints
 * the same text (interleaved, 10 rounds): wall time and peak resident memory.
 *
 * @module
 */

import { rootHelp } from "../cli/root_help.ts";
import { fmt, report } from "./measure.ts";
import { median } from "./wrk.ts";
import { benchTempDir } from "./temp_dirs.ts";

const CLI = new URL("../cli.ts", import.meta.url).pathname;

/** Wall time (ms) and peak RSS (MB) of `deno run -A <args>`. */
async function once(args: string[], cwd: string): Promise<{ ms: number; mb: number }> {
  const t0 = performance.now();
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "%M", Deno.execPath(), "run", "-A", "--quiet", ...args],
    cwd,
    env: { FRAMEWORK_HOME: `${cwd}/home`, NO_COLOR: "1" },
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - t0;
  const kb = Number(new TextDecoder().decode(out.stderr).trim().split("\n").at(-1));
  return { ms, mb: kb / 1024 };
}

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const dir = await benchTempDir("fw-bench-cli-");
  const bare = `${dir}/bare.ts`;
  await Deno.writeTextFile(bare, `console.log(${JSON.stringify(rootHelp())});\n`);
  await Deno.mkdir(`${dir}/hello`);
  await Deno.writeTextFile(
    `${dir}/hello/harness.yaml`,
    "id: hello\nmodel:\n  provider: scripted\n  replies: [{text: hi}]\n",
  );
  const cases: [string, string[]][] = [
    ["bare Deno script printing the same text", [bare]],
    ["framework --help", [CLI, "--help"]],
    ["framework validate (a verb, its modules loaded)", [CLI, "validate", "hello", "--json"]],
  ];
  for (const [, args] of cases) await once(args, dir); // warm the module cache
  const results = cases.map(() => ({ ms: [] as number[], mb: [] as number[] }));
  for (let i = 0; i < 10; i++) {
    for (const [k, [, args]] of cases.entries()) {
      const r = await once(args, dir);
      results[k]!.ms.push(r.ms);
      results[k]!.mb.push(r.mb);
    }
  }
  const base = median(results[0]!.ms);
  for (const [k, [name]] of cases.entries()) {
    const ms = median(results[k]!.ms);
    report(name, {
      "wall p50": fmt(ms, " ms"),
      "peak RSS": fmt(median(results[k]!.mb), " MB"),
      ...(k ? { "vs bare": fmt(ms / base, "x") } : {}),
    });
  }
}
