// The tree passes `deno lint` with the project's rules (deno.json), so a finding fails the suite
// where it is made instead of piling up.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";

test("deno lint finds nothing in the tree", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["lint"],
    cwd: new URL("../../", import.meta.url).pathname,
    env: { NO_COLOR: "1" },
  }).output();
  const report = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, report.split("\n").slice(-40).join("\n"));
});
