/**
 * What the control plane's routes share: the served harness, its run service, the authenticator and
 * the body reader, and the edit policy of the shell (declared here once: every remote edit is
 * `remote`).
 *
 * @module
 */

import type { Context, Hono } from "hono";
import type { HarnessRef } from "../../lib/hive/harnesses.ts";
import type { Principal } from "../../lib/keys/authenticate.ts";
import type { HealthSnapshot } from "../../lib/runs/health.ts";
import type { RunService } from "../../lib/runs/service.ts";
import type { EditPolicy } from "../../lib/harness_spec/frozen.ts";
import type { TrustedFolder } from "../../lib/trust/trust_gate.ts";

/** Every edit and proposal decision over the control plane is a remote one. */
export const CONTROL_PLANE_POLICY = "remote" satisfies EditPolicy;

/** Per-request variables. */
export type Env = { Variables: { principal?: Principal } };

/** A Hono app of the control plane (the whole one, or one resource's routes). */
export type ControlPlaneApp = Hono<Env>;

/** What routes can use. */
export interface ControlPlaneContext {
  /** The served harness as the hive binds it (id and folder). */
  harness: HarnessRef;
  /** The trust gate's proof for its folder, taken once before the port opened. */
  trusted: TrustedFolder;
  /** Runs, with the capacity gate. */
  runs: RunService;
  /** The `/health` answer, kept current without per-request file or SQL work. */
  health: HealthSnapshot;
  /**
   * Authenticates a request for a scope (401/403) and remembers its key for the request log (a
   * refusal after the token was verified names its key too).
   */
  verify(request: Request, scope: string | null): Promise<Principal>;
  /** {@link verify} for a route, keeping the principal in the request's variables. */
  authorize(c: Context<Env>, scope: string | null): Promise<Principal>;
  /**
   * Authenticates the request for a scope and reads its JSON object body within the size limit
   * (`allowEmpty`: an empty body is `{}`). The body's bytes are read while the token is checked (the
   * signature check resolves on a later turn of the event loop), so an unauthenticated request's
   * body is read too, within the same limit; but the token's verdict comes first: a request refused
   * there gets its 401 or 403 whatever its body, and a bad body is only reported to an authorized
   * caller.
   */
  authorizedBody(
    c: Context<Env>,
    scope: string,
    allowEmpty?: boolean,
  ): Promise<{ who: Principal; body: Record<string, unknown> }>;
  /** {@link authorizedBody} for a request answered before the router (`POST /run`). */
  verifiedBody(
    request: Request,
    scope: string,
    allowEmpty?: boolean,
  ): Promise<{ who: Principal; body: Record<string, unknown> }>;
}

/**
 * The construction-log actor and policy of an authenticated caller's edit.
 *
 * @param who The verified key.
 * @returns `{actor: "http:<key_id>", policy: "remote"}`.
 */
export function remoteEditor(who: Principal): { actor: string; policy: EditPolicy } {
  return { actor: `http:${who.key_id}`, policy: CONTROL_PLANE_POLICY };
}
