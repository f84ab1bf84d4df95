// The reference AT Protocol stack for the network bench, run under Node 22 by bench/network.ts: a PLC
// directory, the reference PDS (@atproto/pds, SQLite) and the reference app view (@atproto/bsky, which the
// PDS asks for feeds) indexing the PDS's firehose, as @atproto/dev-env composes them. It prints one JSON
// line with the addresses, answers POST /settle (once everything written has been indexed), and stops
// when its standard input closes or it is sent SIGTERM. The bench copies this file next to the installed
// packages, so the imports resolve there.
import http from "node:http";

// named through a variable: this file runs under Node from the reference's own node_modules, and the
// project's type check (which walks bench/) must not try to resolve the package itself
const DEV_ENV = "@atproto/dev-env";
const { TestNetwork } = await import(DEV_ENV);

const network = await TestNetwork.create({
  dbPostgresUrl: process.env.DB_POSTGRES_URL,
  dbPostgresSchema: process.env.DB_POSTGRES_SCHEMA,
});

const control = http.createServer(async (_req, res) => {
  try {
    await network.processAll(30_000);
    res.end("settled");
  } catch (error) {
    res.statusCode = 500;
    res.end(String(error));
  }
});
await new Promise((resolve) => control.listen(0, "127.0.0.1", resolve));

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  control.close();
  await network.close().catch(() => {});
  process.exit(0);
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();

process.stdout.write(JSON.stringify({ pds: network.pds.url, control: `http://127.0.0.1:${control.address().port}` }) + "\n");
