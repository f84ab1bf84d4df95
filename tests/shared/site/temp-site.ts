// Temporary content directories for the site tests.
export const MINIMAL_SITE_YAML = `name: Tiny
slug: tiny
domain: tiny.test
mode: git
locales:
  - { code: en-US, name: English, default: true }
  - { code: de-DE, name: German, fallback: en-US }
`;

/** Writes files (path -> text or bytes) under a fresh temporary directory and returns its path. */
export async function makeSite(files: Record<string, string | Uint8Array>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "sitewire-site-" });
  await writeFiles(dir, { "site.yaml": MINIMAL_SITE_YAML, ...files });
  return dir;
}

export async function writeFiles(dir: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = `${dir}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(full, content);
    else await Deno.writeFile(full, content);
  }
}

/** Runs git in dir with fixed identity and dates (so commit times are known). */
export async function git(dir: string, args: string[], at = "2024-05-01T10:00:00Z"): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd: dir,
    env: {
      GIT_AUTHOR_NAME: "Test",
      GIT_AUTHOR_EMAIL: "test@example.com",
      GIT_COMMITTER_NAME: "Test",
      GIT_COMMITTER_EMAIL: "test@example.com",
      GIT_AUTHOR_DATE: at,
      GIT_COMMITTER_DATE: at,
      GIT_CONFIG_NOSYSTEM: "1",
      HOME: dir,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

export const DEMO_SITE = new URL("../../../demo-site", import.meta.url).pathname;
