// The reference network for `deno task interop`, run under Node 22 from the reference packages that
// bench/network.ts installs: a PLC directory, the reference PDS and the reference app view
// (@atproto/bsky on PostgreSQL), composed by @atproto/dev-env. It prints one JSON line with their
// addresses, then reads the site's firehose address from standard input and has the app view index that
// stream too (a second RepoSubscription, verifying each commit as it does the reference PDS's). It stops
// when its standard input closes or on SIGTERM.
import readline from "node:readline";

// named through variables: this file runs from the reference's own node_modules, and the project's
// type check must not try to resolve these packages
const DEV_ENV = "@atproto/dev-env";
const { TestNetwork } = await import(DEV_ENV);

const network = await TestNetwork.create({
  dbPostgresUrl: process.env.DB_POSTGRES_URL,
  dbPostgresSchema: process.env.DB_POSTGRES_SCHEMA,
});

let siteSubscription;
let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await siteSubscription?.destroy?.().catch(() => {});
  await network.close().catch(() => {});
  process.exit(0);
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

process.stdout.write(JSON.stringify({
  plc: network.plc.url,
  pds: network.pds.url,
  appview: network.bsky.url,
  appviewDid: network.bsky.serverDid,
}) + "\n");

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const site = line.trim();
  if (!site || siteSubscription) return;
  // @atproto/bsky's RepoSubscription, the class of the app view's own subscription to the reference PDS
  const RepoSubscription = network.bsky.sub.constructor;
  siteSubscription = new RepoSubscription({
    service: site,
    db: network.bsky.db,
    idResolver: network.bsky.dataplane.idResolver,
  });
  void siteSubscription.start();
  process.stdout.write(JSON.stringify({ subscribed: site }) + "\n");
});
lines.on("close", stop);
