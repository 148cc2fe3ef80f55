/**
 * The hive's two stores for tests that must hold on both: SQLite (a file in a temporary home) and
 * PostgreSQL (a fresh database on a throwaway cluster, one cluster per test module, started on first
 * use and stopped when the module's tests end).
 *
 * @module
 */

import { closeHives, setHiveUrl } from "../../lib/hive/open.ts";
import { startTestCluster, type TestCluster } from "./postgres.ts";
import { tempHome } from "./temp.ts";

/** A store of the hive. */
export type Store = "sqlite" | "postgres";

/** Both stores, for `for (const store of STORES) Deno.test(…)`. */
export const STORES: readonly Store[] = ["sqlite", "postgres"];

let cluster: Promise<TestCluster> | undefined;
let started: TestCluster | undefined;

/**
 * This module's throwaway cluster, started on first use and stopped when the realm unloads.
 *
 * @returns The cluster.
 */
export function sharedCluster(): Promise<TestCluster> {
  if (!cluster) {
    cluster = startTestCluster().then((c) => started = c);
    globalThis.addEventListener("unload", () => started?.removeSync());
  }
  return cluster;
}

/** A temporary home whose hive is in one store. */
export interface StoreHome extends AsyncDisposable {
  path: string;
  store: Store;
  /** The PostgreSQL URL (undefined for SQLite). */
  url?: string;
  /** The environment a child process needs to share this hive. */
  env: Record<string, string>;
}

/**
 * Points this realm's home at a fresh temporary folder and its hive at the store: for PostgreSQL a
 * fresh database of the module's cluster.
 *
 * @param store The store.
 * @returns The home; dispose it to restore the defaults.
 */
export async function storeHome(store: Store): Promise<StoreHome> {
  const home = await tempHome();
  const url = store === "postgres" ? await (await sharedCluster()).createDatabase() : undefined;
  setHiveUrl(url);
  return {
    path: home.path,
    store,
    url,
    env: { FRAMEWORK_HOME: home.path, ...(url ? { FRAMEWORK_HIVE_URL: url } : {}) },
    async [Symbol.asyncDispose]() {
      closeHives();
      setHiveUrl(undefined);
      await home[Symbol.asyncDispose]();
    },
  };
}
