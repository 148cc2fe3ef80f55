/**
 * A real browser for UI tests: Debian's Chromium driven by playwright-core (never a downloaded
 * browser). The test command (`deno task test`) installs Chromium when it is missing
 * (scripts/test_prepare.ts); `CHROMIUM_PATH` points elsewhere.
 *
 * @module
 */

import { type Browser, chromium, type Page } from "playwright-core";
import { join } from "node:path";
import { findChromium } from "../../scripts/test_prepare.ts";

/** The flags every launch uses (headless, no sandbox in containers, nothing phoning home). */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

/** Where the tests write screenshots (git-ignored). */
export const ARTIFACTS = new URL("../.artifacts/", import.meta.url).pathname;

/**
 * The Chromium executable: `CHROMIUM_PATH`, else Debian's on the PATH (the one the test command's
 * preparation finds or installs).
 *
 * @returns Its path.
 * @throws When there is none, saying how to get one.
 */
export function chromiumPath(): string {
  const found = findChromium(Deno.env);
  if (found) return found;
  throw new Error(
    "No Chromium found: run the tests with `deno task test`, which installs Debian's chromium (or set CHROMIUM_PATH)",
  );
}

/** A browser with one 1280×800 page; dispose it to close. */
export interface TestBrowser extends AsyncDisposable {
  browser: Browser;
  page: Page;
  /** Errors the page threw or logged (a test asserts there are none). */
  errors: string[];
  /** Requests that left 127.0.0.1 (a test asserts there are none). */
  foreign: string[];
  /** Removes the errors a test expects (a refused request it made on purpose) and returns them. */
  takeErrors(pattern: RegExp): string[];
  /** Saves a screenshot of the page as `tests/.artifacts/<dir>/<name>.png`. */
  screenshot(dir: string, name: string): Promise<string>;
}

/**
 * Launches Chromium with one page at 1280×800.
 *
 * @returns The browser.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_FLAGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const foreign: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("response", (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()} ${r.request().method()} ${r.url()}`);
  });
  page.on("request", (r) => {
    const url = new URL(r.url());
    if (url.protocol !== "data:" && url.hostname !== "127.0.0.1") foreign.push(r.url());
  });
  return {
    browser,
    page,
    errors,
    foreign,
    takeErrors(pattern) {
      const taken = errors.filter((e) => pattern.test(e));
      const kept = errors.filter((e) => !pattern.test(e));
      errors.splice(0, errors.length, ...kept);
      return taken;
    },
    async screenshot(dir, name) {
      const folder = join(ARTIFACTS, dir);
      await Deno.mkdir(folder, { recursive: true });
      const path = join(folder, `${name}.png`);
      await page.screenshot({ path });
      return path;
    },
    async [Symbol.asyncDispose]() {
      await browser.close();
    },
  };
}

/**
 * Opens a workbench address and waits until its islands are hydrated.
 *
 * @param page The page.
 * @param url The address.
 */
export async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector("html[data-hydrated]");
}
