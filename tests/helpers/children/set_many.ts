/**
 * Child process for concurrency tests: sets `extensions.<prefix>_<i>` for i in [0, n).
 * Usage: set_many.ts <harness-dir> <prefix> <n>
 */
import { setField } from "../../../lib/construct/set_field.ts";

const [dir, prefix, n] = Deno.args;
for (let i = 0; i < Number(n); i++) {
  await setField(dir!, `extensions.${prefix}_${i}`, i, { actor: `cli`, policy: "local" });
}
