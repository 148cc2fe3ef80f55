/**
 * Private key files on the member's machine: `<name>.pem`, PKCS#8, mode 0600, in a 0700 folder
 * (default `<home>/keys`). A key file is created exclusively and never overwritten.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { badInput } from "../errors.ts";
import { defaultKeysDir } from "../paths.ts";
import { newKeyPair, type SigningKey, signingKeyFromPem } from "./key_material.ts";

/** What {@link generateKey} created. */
export interface GeneratedKey {
  name: string;
  path: string;
  public_key: string;
  key_id: string;
}

/** Key names: letters, digits, `_`, `-`, `.`; never a path. */
export const KEY_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Generates an ed25519 key and writes `<outDir>/<name>.pem` (exclusive create, mode 0600).
 *
 * @example
 * ```ts
 * const { public_key, key_id } = await generateKey("alice");
 * ```
 * @param name The key's name.
 * @param outDir The folder (default `<home>/keys`, created with mode 0700).
 * @returns The path, public key and key id.
 */
export async function generateKey(
  name: string,
  outDir: string = defaultKeysDir(),
): Promise<GeneratedKey> {
  if (!KEY_NAME_PATTERN.test(name)) {
    throw badInput(
      `Invalid key name ${
        JSON.stringify(name)
      }: use letters, digits, '_', '-' and '.' (no slashes)`,
    );
  }
  const dir = resolve(outDir);
  const path = join(dir, `${name}.pem`);
  const created = await Deno.mkdir(dir, { recursive: true, mode: 0o700 }).then(
    () => true,
    (err) => {
      if (err instanceof Deno.errors.AlreadyExists) return false;
      throw err;
    },
  );
  if (!created) {
    const info = await Deno.stat(dir);
    if (!info.isDirectory) throw badInput(`${JSON.stringify(outDir)} is not a folder`);
  }
  const pair = await newKeyPair();
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) {
      throw badInput(
        `The key file ${path} already exists; it is never overwritten. Choose another name or remove it yourself`,
        {
          path,
        },
      );
    }
    throw err;
  }
  try {
    await file.write(new TextEncoder().encode(pair.pem));
    await file.syncData();
  } finally {
    file.close();
  }
  await Deno.chmod(path, 0o600);
  return { name, path, public_key: pair.public_key, key_id: pair.key_id };
}

/**
 * Reads a private key file.
 *
 * @param path The PEM file.
 * @returns The signing key.
 */
export async function readKeyFile(path: string): Promise<SigningKey> {
  let pem: string;
  try {
    pem = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw badInput(
        `No key file at ${
          JSON.stringify(path)
        }; create one with \`framework keys generate <name>\``,
      );
    }
    throw err;
  }
  return await signingKeyFromPem(pem);
}
