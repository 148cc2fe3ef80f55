/**
 * A bare `Deno.serve` answering fixed bytes: the floor the control plane is compared against.
 * Usage: bare_server.ts <body-file>
 */
const body = await Deno.readFile(Deno.args[0]!);
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(port),
}, () => new Response(body, { headers: { "content-type": "application/json; charset=utf-8" } }));
