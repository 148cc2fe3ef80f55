/**
 * Checking a harness's delegation peers: each `harness` folder must exist and be a harness other
 * than this one (errors); an untrusted peer is a warning, since it is never started. A remote (A2A)
 * peer whose token variable is not set here is a warning (it is never called); with `connect`, its
 * card is fetched (no token is sent) and reported, and a card that cannot be fetched is an error.
 *
 * @module
 */

import { resolve } from "node:path";
import { specPath } from "../paths.ts";
import type { SpecIssue } from "../harness_spec/issues.ts";
import { type HarnessSpec, isRemotePeer, type RemotePeer } from "../harness_spec/schema.ts";
import { type PeerCard, peerCard } from "../tools/a2a_peer.ts";
import { trustedEntryFor } from "../trust/store.ts";

/** How long `validate --connect` waits for a remote peer's card. */
const CARD_TIMEOUT_MS = 10_000;

/** A remote peer's card as `validate --connect` reports it. */
export interface ConnectedPeer {
  url: string;
  card: PeerCard;
}

/** A remote peer's problems: its token variable, and (connect) its card. */
async function checkRemote(
  i: number,
  p: RemotePeer,
  connect: boolean,
  out: SpecIssue[],
  cards: ConnectedPeer[],
): Promise<void> {
  if (!Deno.env.get(p.token_env)) {
    out.push({
      path: `delegation.peers.${i}.token_env`,
      severity: "warning",
      message:
        `Peer ${p.a2a}: the environment variable ${p.token_env} is not set here, so the peer is never called; set it to the peer's bearer token where the harness runs`,
    });
  }
  if (!connect) return;
  try {
    cards.push({ url: p.a2a, card: await peerCard(p.a2a, AbortSignal.timeout(CARD_TIMEOUT_MS)) });
  } catch (err) {
    out.push({
      path: `delegation.peers.${i}.a2a`,
      severity: "error",
      message: `Peer ${p.a2a}: its agent card could not be fetched: ${
        (err as Error).message.split("\n")[0]
      }`,
    });
  }
}

/**
 * The problems of the peers of a spec.
 *
 * @param dir The harness folder (absolute, symlinks resolved).
 * @param spec The spec.
 * @param connect Fetch each remote peer's card (`validate --connect`).
 * @returns Issues at `delegation.peers.N.*`, and the remote peers' cards (with `connect`).
 */
export async function checkPeers(
  dir: string,
  spec: HarnessSpec,
  connect = false,
): Promise<{ issues: SpecIssue[]; cards: ConnectedPeer[] }> {
  const out: SpecIssue[] = [];
  const cards: ConnectedPeer[] = [];
  for (const [i, p] of (spec.delegation?.peers ?? []).entries()) {
    if (isRemotePeer(p)) {
      await checkRemote(i, p, connect, out, cards);
      continue;
    }
    const path = `delegation.peers.${i}.harness`;
    let real: string;
    try {
      real = await Deno.realPath(resolve(dir, p.harness));
    } catch {
      out.push({ path, severity: "error", message: `Peer ${p.name}: no folder at ${p.harness}` });
      continue;
    }
    if (real === dir) {
      out.push({ path, severity: "error", message: `Peer ${p.name} is this harness itself` });
      continue;
    }
    try {
      await Deno.stat(specPath(real));
    } catch {
      out.push({
        path,
        severity: "error",
        message: `Peer ${p.name}: ${p.harness} is not a harness (no harness.yaml)`,
      });
      continue;
    }
    if (!(await trustedEntryFor(real))) {
      out.push({
        path,
        severity: "warning",
        message:
          `Peer ${p.name} is not trusted, so it is never started; trust it with framework trust ${real}`,
      });
    }
  }
  return { issues: out, cards };
}
