// A dispatcher in a process of its own, as the dev host runs one (start(): LISTEN where it can, and the
// poll), for the test that kills it mid-delivery. Arguments: the database URL, the API name its rows
// carry, and the claim lease in seconds. It prints "started" once its first pass ran.
import { connect } from "../../../shared/db.ts";
import { createDispatcher } from "../../../shared/webhooks/dispatcher.ts";
import { hmacSha256Hex } from "../../../shared/webhooks/sign.ts";

const [url, api, lease] = Deno.args;
const sql = connect(url, { max: 2 });
const dispatcher = createDispatcher({
  sql,
  adapters: {
    [api]: { sign: async (row) => ({ "x-test-signature": await hmacSha256Hex("whsec", row.body), "x-delivery-id": String(row.id) }) },
  },
  allowPrivate: true,
  leaseSeconds: Number(lease),
  timeoutMs: 60_000,
  pollIntervalMs: 100,
  listen: false,
});
dispatcher.start();
await dispatcher.ready;
console.log("started");
