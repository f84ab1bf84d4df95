// Makes a new on-disk PGlite data directory (shared/embedded.ts), run as a process of its own:
// `deno run shared/embedded-init.ts <dataDir>`. PGlite's initdb runs in a WebAssembly instance of its own
// whose memory is not given back while the process lives: a `task dev` that had made its database kept
// some 300 MB more than one that found it. A worker did not do: a terminated worker still left a 38 MB
// block of initdb's in-memory files behind in the host (measured in /proc/<pid>/smaps), and the worker's
// initdb peak counted in the host's. A process gives everything back when it exits.
import { PGlite } from "@electric-sql/pglite";

if (import.meta.main) {
  const [dataDir] = Deno.args;
  if (!dataDir) throw new Error("usage: embedded-init.ts <dataDir>");
  const db = await PGlite.create({ dataDir });
  await db.close();
}
