// Vendure (@vendure/core) for the peers bench, run under Node 22 by bench/peers/vendure.ts from the
// folder its packages were installed in. On a fresh PostgreSQL database (VENDURE_DB_URL, schema made by
// TypeORM's synchronize) it imports the catalog the bench wrote (VENDURE_CATALOG: Vendure's own product
// CSV; VENDURE_INITIAL: its initial data, with one collection per bench collection, each a facet-value
// filter) when VENDURE_IMPORT=yes (else the database is a copy of one imported before), with Vendure's own importer (what `@vendure/create` and its `populate` use), waits until the
// collection filters have been applied by the job queue (run in this process), and then prints one JSON
// line: the Shop API address and the counts it serves. Lines before it are progress. It stops when its
// standard input closes.
import fs from "node:fs";
import { createRequire } from "node:module";

// names through variables: this file runs under Node from the peer's own node_modules, and the project's
// type check (which walks bench/) must not try to resolve these packages itself
const CORE = "@vendure/core";
const CLI = "@vendure/core/cli";
// both are CommonJS, and the cli entry is a folder ESM cannot import
const require = createRequire(import.meta.url);
const vendure = require(CORE);
const cli = require(CLI);
const {
  bootstrap,
  DefaultLogger,
  LogLevel,
  dummyPaymentHandler,
  JobQueueService,
  Importer,
  RequestContextService,
} = vendure;

const protocol = (line) => process.stdout.write(line + "\n");
// Vendure and its importer write to the console: keep standard output for the lines above
console.log = console.info = console.warn = console.error;
process.env.CREATING_VENDURE_APP = "true"; // the importer's progress bar off

const db = new URL(process.env.VENDURE_DB_URL);
const port = Number(process.env.VENDURE_PORT);
const config = {
  apiOptions: {
    port,
    hostname: "127.0.0.1",
    adminApiPath: "admin-api",
    shopApiPath: "shop-api",
    shopListQueryLimit: 250,
  },
  authOptions: {
    tokenMethod: ["bearer", "cookie"],
    superadminCredentials: { identifier: "superadmin", password: crypto.randomUUID() },
    cookieOptions: { secret: "sitewire-bench" },
  },
  dbConnectionOptions: {
    type: "postgres",
    synchronize: true,
    logging: false,
    host: db.hostname,
    port: Number(db.port || 5432),
    username: decodeURIComponent(db.username || "postgres"),
    password: decodeURIComponent(db.password || ""),
    database: db.pathname.slice(1),
  },
  paymentOptions: { paymentMethodHandlers: [dummyPaymentHandler] },
  logger: new DefaultLogger({ level: LogLevel.Error }),
  plugins: [],
};

const started = Date.now();
const app = await bootstrap(config);
await app.get(JobQueueService).start();
protocol(`progress vendure started in ${Date.now() - started} ms`);

const initial = JSON.parse(fs.readFileSync(process.env.VENDURE_INITIAL, "utf8"));
if (process.env.VENDURE_IMPORT === "yes") {
  await cli.populateInitialData(app, initial);
  const imported = Date.now();
  // Vendure's importer (what its `populate` calls), watched so the bench can show progress
  const csv = fs.readFileSync(process.env.VENDURE_CATALOG, "utf8");
  const total = csv.split("\n").slice(1).filter((line) => line && !line.startsWith(",")).length;
  const ctx = await app.get(RequestContextService).create({
    apiType: "admin",
    languageCode: initial.defaultLanguage,
  });
  const result = await new Promise((resolve, reject) => {
    let last = { imported: 0, errors: [] };
    app.get(Importer).parseAndImport(csv, ctx, true).subscribe({
      next(progress) {
        if (progress.imported && progress.imported % 100 === 0 && progress.imported !== last.imported) {
          protocol(
            `progress vendure imported ${progress.imported}/${total} products (${
              Math.round((Date.now() - imported) / 1000)
            } s)`,
          );
        }
        last = progress;
      },
      error: reject,
      complete: () => resolve(last),
    });
  });
  if (result.errors?.length) {
    throw new Error(`vendure import: ${result.errors.length} errors, first: ${result.errors[0]}`);
  }
  protocol(
    `progress vendure imported ${result.imported} products in ${
      Date.now() - imported
    } ms; creating collections`,
  );
  await cli.populateCollections(app, initial);
}

const shop = `http://127.0.0.1:${port}/shop-api`;
async function shopQuery(query) {
  const res = await fetch(shop, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query }),
  });
  const body = await res.json();
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

// the collection filters are applied by jobs: wait until every collection holds the variants it should
const expected = Number(process.env.VENDURE_COLLECTION_VARIANTS);
let held = 0;
for (let waited = 0;; waited += 500) {
  const data = await shopQuery(
    `{ collections(options: { take: 250 }) { items { productVariants(options: { take: 0 }) { totalItems } } } }`,
  );
  held = data.collections.items.reduce((sum, c) => sum + c.productVariants.totalItems, 0);
  if (held >= expected) break;
  if (waited > 600_000) {
    throw new Error(`vendure collections hold ${held} variants after 10 minutes, not ${expected}`);
  }
  if (waited % 10_000 === 0) protocol(`progress vendure collections hold ${held}/${expected} variants`);
  await new Promise((resolve) => setTimeout(resolve, 500));
}
const counts = await shopQuery(`{ products(options: { take: 1 }) { totalItems } }`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await app.close().catch(() => {});
  process.exit(0);
}
process.on("SIGTERM", stop);
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();

protocol(
  JSON.stringify({
    shop,
    products: counts.products.totalItems,
    collection_variants: held,
    ready_ms: Date.now() - started,
  }),
);
