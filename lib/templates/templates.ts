/**
 * The templates `framework init` can write. Files are embedded with text imports, so a compiled
 * binary needs no file reads at run time.
 *
 * @module
 */

import helloGitignore from "./hello/gitignore.txt" with { type: "text" };
import helloSpec from "./hello/harness.yaml" with { type: "text" };
import helloNote from "./hello/note.txt" with { type: "text" };
import blankSpec from "./blank/harness.yaml" with { type: "text" };

/** One template: its files by path relative to the new harness folder. */
export interface Template {
  description: string;
  files: Readonly<Record<string, string>>;
}

/** Every template by name. */
export const TEMPLATES: Readonly<Record<string, Template>> = {
  hello: {
    description: "An offline greeter with a scripted model, a file tool, a validator and a skill",
    files: {
      "harness.yaml": helloSpec,
      ".gitignore": helloGitignore,
      "workspace/note.txt": helloNote,
    },
  },
  blank: {
    description: "A minimal harness with a scripted model and a non-empty validator, to build on",
    files: {
      "harness.yaml": blankSpec,
      ".gitignore": helloGitignore,
    },
  },
};
