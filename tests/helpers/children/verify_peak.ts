/**
 * Child process for memory tests: verifies a package and prints one JSON line with the outcome and
 * the process's peak resident memory (VmHWM, kB) read from /proc after it.
 * Usage: verify_peak.ts <package file>
 */
import { FrameworkError } from "../../../lib/errors.ts";
import { verifyPackage } from "../../../lib/package/package.ts";

let outcome: { ok: boolean; kind?: string; message?: string };
try {
  await verifyPackage(Deno.args[0]!);
  outcome = { ok: true };
} catch (err) {
  outcome = err instanceof FrameworkError
    ? { ok: false, kind: err.kind, message: err.message }
    : { ok: false, kind: "thrown", message: String(err) };
}
const status = await Deno.readTextFile("/proc/self/status");
const peakKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
console.log(JSON.stringify({ ...outcome, peak_kb: peakKb }));
