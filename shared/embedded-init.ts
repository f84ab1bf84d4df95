// Makes a new on-disk PGlite data directory in a worker of its own (shared/embedded.ts). PGlite's initdb
// runs in a WebAssembly instance of its own whose memory is not given back while the process lives: a
// `task dev` that had made its database kept some 300 MB more than one that found it. A worker's memory
// goes with the worker.
import { PGlite } from "@electric-sql/pglite";

const scope = self as unknown as Worker;
scope.onmessage = async (e: MessageEvent<{ dataDir: string }>) => {
  try {
    const db = await PGlite.create({ dataDir: e.data.dataDir });
    await db.close();
    scope.postMessage({ ok: true });
  } catch (error) {
    scope.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
  }
};
