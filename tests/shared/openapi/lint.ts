// `redocly lint` on a document, as the suite runs it: the @redocly/cli version pinned in deno.json, run
// through Deno from the npm registry (installed like every other dependency), on a temporary file.
const ROOT = new URL("../../../", import.meta.url).pathname;

export interface LintProblem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location?: { pointer?: string }[];
}

export interface LintReport {
  totals: { errors: number; warnings: number };
  problems: LintProblem[];
}

async function pinnedCli(): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const specifier = config.imports?.["@redocly/cli"];
  if (typeof specifier !== "string" || !specifier.startsWith("npm:@redocly/cli@")) {
    throw new Error("deno.json must pin @redocly/cli as an npm: import");
  }
  return specifier;
}

/** Lints the document with Redocly's recommended rules; the report lists every problem. */
export async function redoclyLint(document: unknown): Promise<LintReport> {
  const dir = await Deno.makeTempDir({ prefix: "openapi-lint-" });
  try {
    const file = `${dir}/openapi.json`;
    await Deno.writeTextFile(file, JSON.stringify(document));
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", await pinnedCli(), "lint", file, "--format=json"],
      cwd: ROOT,
      env: { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(output.stdout);
    const start = text.indexOf("{");
    if (start < 0) {
      throw new Error(`redocly lint printed no report (exit ${output.code}): ${new TextDecoder().decode(output.stderr)}`);
    }
    return JSON.parse(text.slice(start)) as LintReport;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The errors of a report, one readable line each (for assertion messages). */
export function lintErrors(report: LintReport): string[] {
  return report.problems
    .filter((p) => p.severity === "error")
    .map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? "?"}`);
}
