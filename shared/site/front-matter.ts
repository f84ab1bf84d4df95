// A record file's front matter: `---` YAML `---` then the markdown body. The directory reader, the
// record coercion and form documents read files this way.
import { parse as parseYaml } from "yaml";
import { firstLine, isMap } from "./config.ts";
import { type ParsedFile, SiteImportError } from "./snapshot.ts";

/** Splits `---\n<yaml>\n---\n<markdown>`; a file without front matter is all body. */
export function splitFrontMatter(text: string, file: string): ParsedFile {
  const source = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!/^---[ \t]*\n/.test(source)) return { file, data: {}, body: source };
  const rest = source.slice(source.indexOf("\n") + 1);
  // lines end at \n only: a value holding U+2028 (which a multiline regex would take for a line end)
  // followed by --- must not close the front matter
  const close = rest.match(/(?:^|\n)(?:---|\.\.\.)[ \t]*(?=\n|$)/);
  if (!close || close.index === undefined) {
    throw new SiteImportError(`${file}: the front matter is not closed (no --- line after it)`, file);
  }
  const yaml = rest.slice(0, close.index + (close[0].startsWith("\n") ? 1 : 0));
  const body = rest.slice(close.index + close[0].length).replace(/^\n/, "");
  const data = yaml.trim() ? parseYamlFile(yaml, file, "front matter ") : {};
  if (data === null || data === undefined) return { file, data: {}, body };
  if (!isMap(data)) {
    throw new SiteImportError(`${file}: the front matter must be a mapping of field: value`, file);
  }
  return { file, data, body };
}

export function parseYamlFile(text: string, file: string, what = ""): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    throw new SiteImportError(`${file}: ${what}is not valid YAML: ${firstLine(error)}`, file);
  }
}
