/**
 * Test harnesses written from plain objects.
 *
 * @module
 */

import { stringify } from "yaml";

/** A scripted model block with the given replies. */
export function scripted(
  replies: Record<string, unknown>[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { provider: "scripted", name: "test-script", replies, ...extra };
}

/**
 * Writes `<root>/<name>/harness.yaml` (and extra files) and returns the folder.
 *
 * @param root The parent folder.
 * @param name The harness folder name (also the default id).
 * @param spec Spec fields (id defaults to `name`).
 * @param files Extra files relative to the harness folder.
 * @returns The harness folder.
 */
export async function writeHarness(
  root: string,
  name: string,
  spec: Record<string, unknown>,
  files: Record<string, string> = {},
): Promise<string> {
  const dir = `${root}/${name}`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/harness.yaml`, stringify({ id: name, ...spec }));
  for (const [rel, content] of Object.entries(files)) {
    const path = `${dir}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, content);
  }
  return await Deno.realPath(dir);
}
