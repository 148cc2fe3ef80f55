/**
 * The committed browser bundle (`ui/dist/client.js`, embedded in the program) is what the sources
 * build to now.
 *
 * @module
 */

import assert from "node:assert/strict";
import { buildClientBundle, CLIENT_BUNDLE } from "../../ui/build.ts";

Deno.test("ui/dist/client.js is the bundle the sources build to", async () => {
  const [fresh, committed] = await Promise.all([
    buildClientBundle(),
    Deno.readTextFile(CLIENT_BUNDLE),
  ]);
  assert.ok(fresh.length > 0, "the fresh bundle is empty");
  // Compare without printing two minified bundles on failure.
  assert.ok(
    fresh === committed,
    `ui/dist/client.js is stale (committed ${committed.length} chars, fresh ${fresh.length}): ` +
      "run `deno task build:ui` and commit the result",
  );
});
