// Committing to the git repository a content directory lives in (./git.ts reads its history): exactly
// the given paths, as they are in the work tree, in a commit of their own.
//
// The commit is built on a private index (read-tree HEAD, update-index the paths, write-tree,
// commit-tree, update-ref with the old HEAD as the expected value), so what a person has staged stays
// staged, no hook, editor or configured identity is involved, and a HEAD that moved meanwhile fails the
// commit instead of losing someone's work (the push retries). The real index is then brought in step
// for those paths, so `git status` does not show them as changed.

export interface GitPerson {
  name: string;
  email: string;
}

export interface CommitInput {
  /** paths relative to the directory: files written, changed or removed */
  paths: string[];
  message: string;
  author: GitPerson;
  committer: GitPerson;
  /** when the change was made (the committer date is now) */
  authorDate?: Date;
}

export class GitError extends Error {}

const BASE_ENV = { GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };
const NO_COMMIT = "0".repeat(40);

async function git(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Deno.CommandOutput> {
  return await new Deno.Command("git", {
    args,
    cwd: dir,
    env: { ...BASE_ENV, ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
}

async function run(dir: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const out = await git(dir, args, env);
  if (!out.success) {
    const why = new TextDecoder().decode(out.stderr).trim().split("\n").pop() ?? "";
    throw new GitError(`git ${args[0]} failed in ${dir}: ${why}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * Whether `dir` is inside a git work tree. False when it is not, or git is not installed; any other
 * failure (a repository git refuses, say for its owner) is an error, so it is reported, not skipped.
 */
export async function inWorkTree(dir: string): Promise<boolean> {
  let out: Deno.CommandOutput;
  try {
    out = await git(dir, ["rev-parse", "--is-inside-work-tree"]);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false; // no git on this machine
    throw error;
  }
  if (out.success) return new TextDecoder().decode(out.stdout).trim() === "true";
  const why = new TextDecoder().decode(out.stderr);
  if (/not a git repository/i.test(why)) return false;
  throw new GitError(`git rev-parse failed in ${dir}: ${why.trim().split("\n").pop()}`);
}

/** Commits `paths` as the work tree has them; answers the commit's hash, or null when nothing changed. */
export async function commitPaths(dir: string, input: CommitInput): Promise<string | null> {
  const scratch = await Deno.makeTempDir({ prefix: "sitewire-index-" });
  try {
    const index = { GIT_INDEX_FILE: `${scratch}/index` };
    const head = await git(dir, ["rev-parse", "-q", "--verify", "HEAD"]).then((out) =>
      out.success ? new TextDecoder().decode(out.stdout).trim() : null
    );
    await run(dir, head ? ["read-tree", head] : ["read-tree", "--empty"], index);
    const before = await run(dir, ["write-tree"], index);
    await run(dir, ["update-index", "--add", "--remove", "--", ...input.paths], index);
    const tree = await run(dir, ["write-tree"], index);
    let commit: string | null = null;
    if (tree !== before) {
      commit = await run(dir, ["commit-tree", tree, ...(head ? ["-p", head] : []), "-m", input.message], {
        GIT_AUTHOR_NAME: input.author.name,
        GIT_AUTHOR_EMAIL: input.author.email,
        ...(input.authorDate ? { GIT_AUTHOR_DATE: input.authorDate.toISOString() } : {}),
        GIT_COMMITTER_NAME: input.committer.name,
        GIT_COMMITTER_EMAIL: input.committer.email,
      });
      await run(dir, [
        "update-ref",
        "-m",
        `sitewire: ${input.message.split("\n")[0]}`,
        "HEAD",
        commit,
        head ?? NO_COMMIT,
      ]);
    }
    // the real index follows the paths (also after an earlier attempt committed and then failed here)
    await run(dir, ["update-index", "--add", "--remove", "--", ...input.paths]);
    return commit;
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}
