/**
 * Who may reach the workbench. Only the launcher listens (the API is called in process, for `/api`);
 * it answers only to its own host names (DNS-rebinding protection), refuses cross-origin writes, and,
 * when it listens beyond loopback, asks for an access token (given once as `?token=…`, then kept in a
 * cookie). A development checkout's separate API port has the same checks.
 *
 * @module
 */

import { timingSafeEqual } from "node:crypto";
import { isLoopbackHost } from "../http/net.ts";

/** The cookie that keeps the access token after `?token=`. */
export const ACCESS_COOKIE = "framework_workbench_access";

/**
 * A random secret (hex).
 *
 * @param bytes Its length in bytes.
 * @returns The secret.
 */
export function newSecret(bytes = 32): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}

/**
 * Compares two secrets in constant time.
 *
 * @param given What the request carried.
 * @param expected The secret.
 * @returns Whether they are equal.
 */
export function secretMatches(given: string | null | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The `Host` header values the launcher answers to: loopback names and addresses, the bound host, this
 * machine's name and interface addresses — each with the port.
 *
 * @param bindHost The address the launcher listens on.
 * @param port The port.
 * @returns Lowercased `host:port` values.
 */
export function allowedHosts(bindHost: string, port: number): Set<string> {
  const names = new Set(["localhost", "127.0.0.1", "[::1]"]);
  const wildcard = bindHost === "0.0.0.0" || bindHost === "::" || bindHost === "[::]";
  if (!wildcard) {
    names.add(bindHost.includes(":") && !bindHost.startsWith("[") ? `[${bindHost}]` : bindHost);
  }
  if (!isLoopbackHost(bindHost)) {
    try {
      names.add(Deno.hostname());
    } catch {
      // no hostname permission
    }
    if (wildcard) {
      try {
        for (const i of Deno.networkInterfaces()) {
          names.add(i.family === "IPv6" ? `[${i.address}]` : i.address);
        }
      } catch {
        // no sys permission: loopback names and the hostname only
      }
    }
  }
  return new Set([...names].map((n) => `${n.toLowerCase()}:${port}`));
}

/**
 * Whether a request's `Host` header is one of the launcher's own.
 *
 * @param host The header value.
 * @param allowed From {@link allowedHosts}.
 * @returns Whether to answer.
 */
export function hostAllowed(host: string | null, allowed: Set<string>): boolean {
  return !!host && allowed.has(host.toLowerCase());
}

/**
 * Reads one cookie from a `Cookie` header.
 *
 * @param header The header value.
 * @param name The cookie.
 * @returns Its value, or undefined.
 */
export function readCookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      return decodeURIComponent(part.slice(eq + 1).trim());
    }
  }
  return undefined;
}
