// HTTP pieces every function shares: the bearer token, the JSON object body, the caller's address.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { Hono } from "hono";
import { bearerToken, callerAddress, callerEnv, clientAddress, readJsonObject } from "../../shared/http.ts";
import { ConfigError, readConfig } from "../../shared/config.ts";

const post = (body: string, headers: Record<string, string> = {}) =>
  new Request("http://fn.test/x", { method: "POST", body, headers });

test("bearerToken: the token of Authorization: Bearer in any case with spaces around; nothing else", () => {
  assert.equal(bearerToken(post("", { authorization: "Bearer abc.def" })), "abc.def");
  assert.equal(bearerToken(post("", { authorization: "  bearer   abc  " })), "abc");
  for (const header of ["Basic abc", "Bearer", "Bearer a b", "abc"]) {
    assert.equal(bearerToken(post("", { authorization: header })), undefined, header);
  }
  assert.equal(bearerToken(new Request("http://fn.test/x?access_token=abc")), undefined);
});

test("readJsonObject: an object, {} for an empty body, and the API's own error for what is not JSON or not an object", async () => {
  const refuse = (message: string) => new RangeError(message);
  assert.deepEqual(await readJsonObject(post('{"a":1}'), refuse), { a: 1 });
  assert.deepEqual(await readJsonObject(post("  \n"), refuse), {});
  await assert.rejects(readJsonObject(post("{nope"), refuse), new RangeError("The body is not valid JSON."));
  for (const body of ["[]", "null", "42", '"text"']) {
    await assert.rejects(
      readJsonObject(post(body), refuse),
      new RangeError("The body must be a JSON object."),
      body,
    );
  }
});

const peer = (hostname: string): Deno.NetAddr => ({ transport: "tcp", hostname, port: 50000 });
const forwarded = (value?: string) =>
  new Request("http://fn.test/x", { headers: value === undefined ? {} : { "x-forwarded-for": value } });

test("callerAddress: the socket's peer unless proxies are trusted; then the entry the outermost trusted one appended", () => {
  // nobody trusted: whatever the client writes into X-Forwarded-For counts for nothing
  assert.equal(callerAddress(forwarded("203.0.113.9"), peer("192.0.2.1"), 0), "192.0.2.1");
  assert.equal(callerAddress(forwarded(), undefined, 0), "unknown");
  // one trusted proxy appends the address it was reached from: the right-most entry
  assert.equal(callerAddress(forwarded("198.51.100.7"), peer("10.0.0.2"), 1), "198.51.100.7");
  assert.equal(callerAddress(forwarded(" 203.0.113.9 , 198.51.100.7 "), peer("10.0.0.2"), 1), "198.51.100.7");
  // two trusted proxies: the first one's entry stands second from the right; a client's own entries before it
  assert.equal(
    callerAddress(forwarded("203.0.113.9, 198.51.100.7, 10.0.0.3"), peer("10.0.0.2"), 2),
    "198.51.100.7",
  );
  // fewer entries than trusted hops: the left-most there is; no header at all: the socket
  assert.equal(callerAddress(forwarded("198.51.100.7"), peer("10.0.0.2"), 2), "198.51.100.7");
  assert.equal(callerAddress(forwarded(), peer("10.0.0.2"), 1), "10.0.0.2");
  assert.equal(callerAddress(forwarded(" , "), peer("10.0.0.2"), 1), "10.0.0.2");
});

test("clientAddress: what the server entry decided, the socket's peer, or in-process the hop's right-most entry", async () => {
  const app = new Hono().get("/", (c) => c.text(clientAddress(c)));
  const request = () =>
    new Request("http://fn.test/", { headers: { "x-forwarded-for": "203.0.113.9, 198.51.100.7" } });
  const answer = async (env?: unknown) => await (await app.fetch(request(), env)).text();
  assert.equal(
    await answer(callerEnv(request(), { remoteAddr: peer("192.0.2.1") }, { trustedProxies: 0 })),
    "192.0.2.1",
  );
  assert.equal(
    await answer(callerEnv(request(), { remoteAddr: peer("192.0.2.1") }, { trustedProxies: 1 })),
    "198.51.100.7",
  );
  assert.equal(
    await answer({ remoteAddr: peer("192.0.2.5") }),
    "192.0.2.5",
    "an app served directly by Deno.serve",
  );
  assert.equal(await answer({}), "198.51.100.7", "an in-process hop");
});

test("TRUST_PROXY: unset or false trusts nobody, true one proxy, a number that many; anything else is refused", () => {
  const config = (value?: string) => readConfig(new Map(value === undefined ? [] : [["TRUST_PROXY", value]]));
  assert.equal(config().trustedProxies, 0);
  assert.equal(config("false").trustedProxies, 0);
  assert.equal(config("0").trustedProxies, 0);
  assert.equal(config("true").trustedProxies, 1);
  assert.equal(config("1").trustedProxies, 1);
  assert.equal(config("2").trustedProxies, 2);
  for (const bad of ["yes", "-1", "1.5", "11"]) assert.throws(() => config(bad), ConfigError, bad);
});
