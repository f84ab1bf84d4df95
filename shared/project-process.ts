// Runs one of this project's modules in a Deno process of its own, with the project's deno.json (its npm
// packages): for work whose memory must go when it ends (PGlite's WebAssembly memory is never given back
// while a process lives), such as making or filling a new embedded database.
export function runProjectModule(
  module: URL,
  args: string[],
  options: {
    permissions: string[];
    env?: Record<string, string>;
    stdout: "inherit" | "null";
    stderr: "inherit" | "piped";
  },
): Promise<Deno.CommandOutput> {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--config=${new URL("../deno.json", import.meta.url).pathname}`,
      ...options.permissions,
      module.pathname,
      ...args,
    ],
    env: options.env,
    stdin: "null",
    stdout: options.stdout,
    stderr: options.stderr,
  }).output();
}
