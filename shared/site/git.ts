// Git history of a content directory, read with ONE `git log` over the whole directory (never a
// process per file): for each file, the commits that touched it and when.

export interface FileHistory {
  /** Commit hashes touching the file, newest first. */
  commits: string[];
  first: Date;
  last: Date;
}

export interface GitHistory {
  files: Map<string, FileHistory>;
  /** When each commit was made (committer date). */
  commitDates: Map<string, Date>;
}

/**
 * History keyed by path relative to `dir` (forward slashes). Undefined when `dir` is not inside a
 * git work tree or git is not installed; an empty history when the repository has no commits.
 */
export async function readGitHistory(dir: string): Promise<GitHistory | undefined> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command("git", {
      args: [
        "-c",
        "core.quotepath=off",
        "log",
        "--relative",
        "--no-renames",
        "--name-only",
        "-z",
        "--format=%x01%H%x02%cI",
        "--",
        ".",
      ],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
      env: { GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" },
    }).output();
  } catch {
    return undefined; // git is not installed
  }
  if (!output.success) {
    const message = new TextDecoder().decode(output.stderr);
    if (/does not have any commits|bad default revision/i.test(message)) {
      return { files: new Map(), commitDates: new Map() };
    }
    return undefined; // not a repository
  }
  return parseGitLog(new TextDecoder().decode(output.stdout));
}

export function parseGitLog(text: string): GitHistory {
  const files = new Map<string, FileHistory>();
  const commitDates = new Map<string, Date>();
  for (const chunk of text.split("\x01")) {
    if (!chunk) continue;
    const headerEnd = chunk.indexOf("\0");
    const header = headerEnd === -1 ? chunk : chunk.slice(0, headerEnd);
    const [hash, iso] = header.trim().split("\x02");
    if (!hash || !iso) continue;
    const at = new Date(iso);
    commitDates.set(hash, at);
    const names = headerEnd === -1 ? [] : chunk.slice(headerEnd + 1).split("\0");
    for (const raw of names) {
      const name = raw.replace(/^\n+/, "");
      if (!name) continue;
      const seen = files.get(name);
      if (!seen) {
        files.set(name, { commits: [hash], first: at, last: at });
        continue;
      }
      // git log lists newest first; dates may still be out of order after a rebase
      if (!seen.commits.includes(hash)) seen.commits.push(hash);
      if (at < seen.first) seen.first = at;
      if (at > seen.last) seen.last = at;
    }
  }
  return { files, commitDates };
}
