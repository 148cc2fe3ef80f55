/**
 * `deno task build:ui`: rebuilds `ui/dist/client.js`, the browser bundle the workbench embeds. Run it
 * after changing anything under `ui/`; a test fails while the committed bundle is stale.
 *
 * @module
 */

import { buildClientBundle, CLIENT_BUNDLE } from "../ui/build.ts";

const js = await buildClientBundle(CLIENT_BUNDLE);
const gz = await new Response(
  new Blob([js]).stream().pipeThrough(new CompressionStream("gzip")),
).arrayBuffer();
console.log(
  `Wrote ${CLIENT_BUNDLE}: ${(js.length / 1024).toFixed(1)} KiB, ${
    (gz.byteLength / 1024).toFixed(1)
  } KiB gzipped`,
);
