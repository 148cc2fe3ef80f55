/**
 * Network helpers for servers: which hosts are loopback, and the loud warning printed when a server
 * binds anything else.
 *
 * @module
 */

/**
 * Whether a host name or address only reaches this machine.
 *
 * @param host A host name or IP address.
 * @returns True for `localhost`, `127.0.0.0/8` and `::1`.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * The multi-line warning printed when a server binds a non-loopback address.
 *
 * @param what The server ("the control plane").
 * @param host The host it binds.
 * @param port The port.
 * @returns The warning text.
 */
export function exposureWarning(what: string, host: string, port: number): string {
  const bar = "!".repeat(78);
  return [
    bar,
    `!! WARNING: ${what} is listening on ${host}:${port}, not on loopback.`,
    "!! There is no TLS: bearer tokens travel in cleartext and can be replayed until they expire.",
    "!! Never expose it directly to the internet. Put a TLS reverse proxy or a tunnel in front,",
    "!! or bind 127.0.0.1 (the default).",
    bar,
  ].join("\n");
}
