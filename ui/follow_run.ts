/**
 * Starting a run from the page and opening its live Trace: the request streams, and as soon as the
 * run is accepted its id is known, the request is ended (the run goes on whatever the page does) and
 * the Trace of the run follows it over the page's one stream of live runs (`ui/run_stream.ts`).
 *
 * @module
 */

import { jsonBody, openStream, readSse } from "./api.ts";
import { paths } from "./paths.ts";
import { withRoute } from "./route.ts";
import type { Store } from "./store.ts";

/**
 * Posts a request that starts a run (`?stream=true`) and opens the run's Trace once it is accepted.
 *
 * @param store The page's store.
 * @param path The streaming path (a run, a resume).
 * @param body The request body.
 * @param harnessId The harness the run belongs to (its Runs list is read again).
 * @returns The run id, or null when the stream ended without accepting a run.
 * @throws {ApiError} For an error answer.
 */
export async function startAndFollow(
  store: Store,
  path: string,
  body: unknown,
  harnessId: string,
): Promise<string | null> {
  const res = await openStream(store.fetcher, path, jsonBody("POST", body));
  for await (const frame of readSse(res)) {
    if (frame.event !== "run_accepted") continue;
    const runId = (frame.data as { run_id: string }).run_id;
    // Leaving the loop cancels the request (readSse): it must not hold one of the browser's six
    // connections to this host while the run goes on.
    store.cache.refresh(paths.runs(harnessId));
    store.navigate(withRoute(store.route.value, { harness: harnessId, tab: "trace", run: runId }));
    return runId;
  }
  return null;
}
