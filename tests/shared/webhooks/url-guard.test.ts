import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import {
  blockedRange,
  checkOutboundUrl,
  isValidWebhookUrl,
  literalPrivateTarget,
  parseIPv6,
  webhookUrlProblem,
} from "../../../shared/webhooks/url-guard.ts";

const noDns = (host: string): Promise<string[]> =>
  Promise.reject(new Error(`unexpected DNS lookup of ${host}`));

async function refused(url: string): Promise<string> {
  const check = await checkOutboundUrl(url, { resolve: noDns });
  assert.equal(check.ok, false, `${url} should be refused`);
  return (check as { reason: string }).reason;
}

test("create-time check accepts http and https URLs with a host", () => {
  assert.ok(isValidWebhookUrl("https://hooks.example.com/in?x=1"));
  assert.ok(isValidWebhookUrl("http://example.com:8080/"));
  assert.ok(isValidWebhookUrl("http://127.0.0.1:9/private-is-a-send-time-question"));
});

test("create-time check refuses other schemes, missing hosts, credentials and garbage", () => {
  assert.equal(isValidWebhookUrl("ftp://example.com/"), false);
  assert.equal(isValidWebhookUrl("javascript:alert(1)"), false);
  assert.equal(isValidWebhookUrl("file:///etc/passwd"), false);
  assert.equal(isValidWebhookUrl("/relative/path"), false);
  assert.equal(isValidWebhookUrl(""), false);
  assert.equal(isValidWebhookUrl("not a url"), false);
  assert.equal(isValidWebhookUrl("https://user:pass@example.com/"), false);
  assert.equal(isValidWebhookUrl("https://user@example.com/"), false);
  assert.equal(webhookUrlProblem("https://user:pass@example.com/"), "url must not contain credentials");
  assert.equal(webhookUrlProblem("ftp://example.com/"), "url must use http or https");
  assert.equal(isValidWebhookUrl("https://example.com/" + "a".repeat(2100)), false);
});

test("send-time check refuses IPv4 loopback anywhere in 127/8", async () => {
  assert.match(await refused("http://127.0.0.1/"), /^loopback address 127\.0\.0\.1$/);
  assert.match(await refused("http://127.255.3.4:8080/x"), /^loopback/);
  // the URL parser normalises other spellings of 127.0.0.1 before the check
  assert.match(await refused("http://2130706433/"), /^loopback/);
  assert.match(await refused("http://0x7f.1/"), /^loopback/);
});

test("send-time check refuses localhost names without asking DNS", async () => {
  assert.match(await refused("http://localhost:8000/hook"), /^loopback host localhost$/);
  assert.match(await refused("http://LOCALHOST./hook"), /^loopback host localhost$/);
  assert.match(await refused("http://api.localhost/hook"), /^loopback host/);
});

test("send-time check refuses the private IPv4 ranges 10/8, 172.16/12 and 192.168/16", async () => {
  for (
    const ip of ["10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.254", "192.168.0.1", "192.168.255.9"]
  ) {
    assert.match(await refused(`http://${ip}/`), /^private address/, ip);
  }
  // just outside the ranges
  assert.equal(blockedRange("172.15.255.255"), undefined);
  assert.equal(blockedRange("172.32.0.0"), undefined);
  assert.equal(blockedRange("11.0.0.1"), undefined);
  assert.equal(blockedRange("192.169.0.1"), undefined);
});

test("send-time check refuses link-local, unspecified, CGNAT, multicast and broadcast IPv4", async () => {
  assert.match(await refused("http://169.254.169.254/latest/meta-data"), /^link-local address/);
  assert.match(await refused("http://0.0.0.0/"), /^unspecified address/);
  assert.match(await refused("http://0.1.2.3/"), /^this-network address/);
  assert.match(await refused("http://100.64.0.1/"), /^shared \(CGNAT\) address/);
  assert.match(await refused("http://100.127.255.255/"), /^shared \(CGNAT\) address/);
  assert.equal(blockedRange("100.63.255.255"), undefined);
  assert.equal(blockedRange("100.128.0.0"), undefined);
  assert.match(await refused("http://224.0.0.1/"), /^multicast address/);
  assert.match(await refused("http://239.255.255.250/"), /^multicast address/);
  assert.match(await refused("http://255.255.255.255/"), /^broadcast address/);
  assert.match(await refused("http://240.0.0.1/"), /^reserved address/);
});

test("send-time check refuses IPv6 loopback, unspecified, unique-local, link-local and multicast", async () => {
  assert.match(await refused("http://[::1]/"), /^loopback address ::1$/);
  assert.match(await refused("http://[::]/"), /^unspecified address/);
  assert.match(await refused("http://[fc00::1]/"), /^private address/);
  assert.match(await refused("http://[fd12:3456:789a::1]/"), /^private address/);
  assert.match(await refused("http://[fe80::1]/"), /^link-local address/);
  assert.match(await refused("http://[febf:ffff::1]/"), /^link-local address/);
  assert.match(await refused("http://[ff02::1]/"), /^multicast address/);
  assert.equal(blockedRange("fe80::1%eth0"), "link-local");
  assert.equal(blockedRange("2606:4700:4700::1111"), undefined);
  assert.equal(blockedRange("fbff::1"), undefined);
});

test("send-time check refuses IPv4-mapped and IPv4-embedding IPv6 forms of private addresses", async () => {
  assert.match(await refused("http://[::ffff:127.0.0.1]/"), /^loopback address/);
  assert.match(await refused("http://[::ffff:10.0.0.1]/"), /^private address/);
  assert.match(await refused("http://[::ffff:169.254.169.254]/"), /^link-local address/);
  assert.match(await refused("http://[::ffff:a9fe:a9fe]/"), /^link-local address/);
  assert.match(await refused("http://[::ffff:0.0.0.0]/"), /^unspecified address/);
  assert.match(await refused("http://[::127.0.0.1]/"), /^loopback address/); // IPv4-compatible
  assert.match(await refused("http://[64:ff9b::10.1.2.3]/"), /^private address/); // NAT64
  assert.match(await refused("http://[2002:c0a8:0101::1]/"), /^private address/); // 6to4 of 192.168.1.1
  assert.equal(blockedRange("::ffff:8.8.8.8"), undefined);
});

test("send-time check lets public literal addresses through without DNS", async () => {
  assert.deepEqual(await checkOutboundUrl("https://8.8.8.8/hook", { resolve: noDns }), {
    ok: true,
    addresses: ["8.8.8.8"],
  });
  assert.deepEqual(await checkOutboundUrl("https://[2606:4700:4700::1111]/", { resolve: noDns }), {
    ok: true,
    addresses: ["2606:4700:4700::1111"],
  });
});

test("send-time check refuses a name when any address it resolves to is private", async () => {
  const resolve = (host: string) =>
    Promise.resolve(host === "mixed.example" ? ["93.184.215.14", "10.1.2.3"] : ["93.184.215.14"]);
  assert.deepEqual(await checkOutboundUrl("https://public.example/", { resolve }), {
    ok: true,
    addresses: ["93.184.215.14"],
  });
  const mixed = await checkOutboundUrl("https://mixed.example/", { resolve });
  assert.deepEqual(mixed, { ok: false, reason: "private address 10.1.2.3" });
});

test("send-time check reports a name that does not resolve as a passing problem", async () => {
  const check = await checkOutboundUrl("https://nowhere.example/", {
    resolve: () => Promise.reject(new Error("NXDOMAIN: /etc/resolv.conf says no")),
  });
  // in its own words: the resolver's text names internals of the machine
  assert.deepEqual(check, { ok: false, reason: "the host nowhere.example does not resolve", transient: true });
});

test("allowPrivate lets loopback and private targets through but still checks the shape", async () => {
  assert.equal(
    (await checkOutboundUrl("http://127.0.0.1:9/", { allowPrivate: true, resolve: noDns })).ok,
    true,
  );
  assert.equal(
    (await checkOutboundUrl("http://localhost/", { allowPrivate: true, resolve: noDns })).ok,
    true,
  );
  assert.equal((await checkOutboundUrl("http://[::1]/", { allowPrivate: true, resolve: noDns })).ok, true);
  const ftp = await checkOutboundUrl("ftp://127.0.0.1/", { allowPrivate: true });
  assert.deepEqual(ftp, { ok: false, reason: "url must use http or https" });
});

test("IPv6 text parses with compression and a trailing dotted quad", () => {
  assert.deepEqual(parseIPv6("::1"), [...new Array(15).fill(0), 1]);
  assert.deepEqual(parseIPv6("::ffff:1.2.3.4")?.slice(10), [0xff, 0xff, 1, 2, 3, 4]);
  assert.equal(parseIPv6("1::2::3"), undefined);
  assert.equal(parseIPv6("1:2:3:4:5:6:7:8:9"), undefined);
  assert.equal(parseIPv6("12345::"), undefined);
  assert.equal(blockedRange("not-an-ip"), "invalid");
});

test("create-time check refuses control characters the URL parser would drop or encode", () => {
  for (
    const url of [
      "https://a.example/x\u0000",
      "https://a.example/a\tb",
      "https://a.exa\nmple/",
      "https://a.example/\u007f",
    ]
  ) {
    assert.equal(webhookUrlProblem(url), "url may not contain control characters", JSON.stringify(url));
  }
  assert.equal(webhookUrlProblem("https://a.example/ü%20x"), undefined);
});

test("the create-time address check names literal non-public hosts and localhost, and leaves names to send time", () => {
  assert.match(literalPrivateTarget("http://127.0.0.1:8080/x")!, /loopback address \(127\.0\.0\.1\)/);
  assert.match(literalPrivateTarget("http://2130706433/x")!, /loopback/); // the URL parser's 127.0.0.1
  assert.match(literalPrivateTarget("http://api.localhost/x")!, /loopback host api\.localhost/);
  assert.match(literalPrivateTarget("https://192.168.1.2/")!, /private/);
  assert.match(literalPrivateTarget("https://[fe80::1]/")!, /link-local/);
  assert.match(literalPrivateTarget("https://[::ffff:10.0.0.1]/")!, /private/);
  for (
    const url of [
      "https://hooks.example/x",
      "https://93.184.216.34/",
      "https://[2606:4700::1111]/",
      "not a url",
    ]
  ) {
    assert.equal(literalPrivateTarget(url), undefined, url);
  }
});
