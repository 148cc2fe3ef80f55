/**
 * A real browser for UI tests: Debian's Chromium driven by playwright-core (never a downloaded
 * browser). `.ci/run` installs Chromium when it is missing; `CHROMIUM_PATH` points elsewhere.
 *
 * @module
 */

import { type Browser, chromium, type Page } from "playwright-core";
import { join } from "node:path";

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
 * The Chromium executable: `CHROMIUM_PATH`, else Debian's.
 *
 * @returns Its path.
 * @throws When there is none, saying how to install it.
 */
export function chromiumPath(): string {
  const candidates = [
    Deno.env.get("CHROMIUM_PATH"),
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
  ].filter((p): p is string => !!p);
  for (const p of candidates) {
    try {
      if (Deno.statSync(p).isFile) return p;
    } catch {
      // next
    }
  }
  throw new Error(
    "No Chromium found: install it with `apt-get install -y chromium` (or set CHROMIUM_PATH)",
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
