/**
 * A stand-in OTLP collector for the benchmarks, in a process of its own (as a collector is): it
 * takes every request to `/v1/traces`, answers 200, and prints its port, then the number of
 * requests it got when its stdin closes.
 *
 * @module
 */

let received = 0;
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  await req.arrayBuffer();
  received++;
  return new Response(new Uint8Array(), { headers: { "content-type": "application/x-protobuf" } });
});
console.log(server.addr.port);
for await (const _ of Deno.stdin.readable) {
  // until the benchmark closes stdin
}
console.log(received);
await server.shutdown();
