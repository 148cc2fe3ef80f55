/**
 * Child process for crash tests: rewrites `instructions` with large values until killed, printing
 * "ready" once the first write has landed.
 * Usage: write_forever.ts <harness-dir>
 */
import { setField } from "../../../lib/construct/set_field.ts";

const [dir] = Deno.args;
let i = 0;
while (true) {
  const letter = String.fromCharCode(65 + (i % 26));
  await setField(dir!, "instructions", `${letter.repeat(200)}\n`.repeat(5000), {
    actor: "cli",
    policy: "local",
  });
  if (i === 0) console.log("ready");
  i++;
}
