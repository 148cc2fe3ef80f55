/**
 * The agent card a control plane serves at `/.well-known/agent-card.json` without a token
 * (docs/control-plane.md, A2A): the harness as an A2A agent — its id as the name, its description,
 * its spec version as the version, the JSON-RPC endpoint `<base>/a2a` in the protocol version the
 * official SDK speaks (1.0), streaming, `text/plain` in and out, its `skills` as the agent's skills,
 * and the bearer scheme the endpoint requires.
 *
 * @module
 */

import { loadSpecCached } from "../harness_spec/cache.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";

/** The A2A protocol version served (the official `@a2a-js/sdk` 1.x speaks it by default). */
export const A2A_PROTOCOL_VERSION = "1.0";

/** Where the card is served (the path the SDK's client fetches). */
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";

/** The JSON-RPC endpoint's path. */
export const A2A_PATH = "/a2a";

/**
 * The agent card of a harness served at `base`.
 *
 * @example
 * ```ts
 * import { loadSpecCached } from "../harness_spec/cache.ts";
 *
 * const loaded = await loadSpecCached("./harnesses/hello");
 * agentCard(loaded.spec, loaded.version, "http://127.0.0.1:8787").supportedInterfaces;
 * // [{url: "http://127.0.0.1:8787/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0"}]
 * ```
 * @param spec The served harness's spec.
 * @param version Its spec version.
 * @param base The control plane's base URL (scheme, host and port).
 * @returns The card, as JSON.
 */
export function agentCard(
  spec: HarnessSpec,
  version: string,
  base: string,
): Record<string, unknown> {
  return {
    name: spec.id,
    description: spec.description ?? spec.name ?? `The ${spec.id} harness`,
    supportedInterfaces: [{
      url: `${base}${A2A_PATH}`,
      protocolBinding: "JSONRPC",
      protocolVersion: A2A_PROTOCOL_VERSION,
    }],
    version,
    capabilities: { streaming: true, pushNotifications: false },
    securitySchemes: {
      bearer: {
        httpAuthSecurityScheme: {
          scheme: "Bearer",
          bearerFormat: "framework ed25519 token",
          description: "A token of a key authorized on this control plane, with the run scope",
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: (spec.skills ?? []).map((s) => ({
      id: s.name,
      name: s.name,
      description: s.description,
      tags: [s.name],
    })),
  };
}

/**
 * The card of the harness a control plane serves, read from its folder (cached while the file is
 * unchanged, so an edited spec shows at once).
 *
 * @param dir The harness folder.
 * @param base The control plane's base URL.
 * @returns The card.
 */
export async function servedCard(dir: string, base: string): Promise<Record<string, unknown>> {
  const loaded = await loadSpecCached(dir);
  return agentCard(loaded.spec, loaded.version, base);
}
