// task dev's idle reclaimer: it gives memory back once the host has been quiet, never while a request is in
// flight, and only when the process grew since it last did. The collection and the trim are stand-ins here
// (counted), the resident size a number the test sets; glibcTrim is the real one on this Linux machine.
import assert from "node:assert/strict";
import { glibcTrim, idleReclaimer } from "../../scripts/dev-memory.ts";

const MB = 1024 * 1024;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

function reclaimerWith(resident: { value: number }) {
  const calls = { collect: 0, trim: 0 };
  const reclaimer = idleReclaimer({
    idleMs: 30,
    minGrowth: 8 * MB,
    collect: () => calls.collect++,
    trim: () => {
      calls.trim++;
      resident.value -= 20 * MB; // what the reclaim gave back
    },
    rss: () => resident.value,
  });
  return { reclaimer, calls };
}

Deno.test("the idle reclaimer collects and trims once the last request has been over for its quiet time", async () => {
  const resident = { value: 300 * MB };
  const { reclaimer, calls } = reclaimerWith(resident);
  try {
    reclaimer.enter();
    reclaimer.enter();
    reclaimer.leave();
    await wait(60);
    assert.deepEqual(calls, { collect: 0, trim: 0 }, "nothing while a request is still in flight");
    reclaimer.leave();
    await wait(10);
    assert.deepEqual(calls, { collect: 0, trim: 0 }, "nothing before the quiet time has passed");
    await wait(60);
    assert.deepEqual(calls, { collect: 1, trim: 1 });
    assert.equal(reclaimer.reclaims, 1);
  } finally {
    reclaimer.stop();
  }
});

Deno.test("the idle reclaimer waits again when a request comes during the quiet time", async () => {
  const resident = { value: 300 * MB };
  const { reclaimer, calls } = reclaimerWith(resident);
  try {
    reclaimer.enter();
    reclaimer.leave();
    await wait(15);
    reclaimer.enter(); // before the 30 ms are up
    await wait(60);
    assert.equal(calls.collect, 0, "a request in flight holds it back");
    reclaimer.leave();
    await wait(60);
    assert.equal(calls.collect, 1);
  } finally {
    reclaimer.stop();
  }
});

Deno.test("the idle reclaimer does nothing again until the process has grown by its threshold", async () => {
  const resident = { value: 300 * MB };
  const { reclaimer, calls } = reclaimerWith(resident);
  try {
    reclaimer.enter();
    reclaimer.leave();
    await wait(60);
    assert.equal(calls.collect, 1); // the first quiet time reclaims: 280 MB now
    resident.value += 4 * MB; // a small request's worth
    reclaimer.enter();
    reclaimer.leave();
    await wait(60);
    assert.equal(calls.collect, 1, "4 MB of growth is under the threshold");
    resident.value += 8 * MB; // a burst's worth
    reclaimer.enter();
    reclaimer.leave();
    await wait(60);
    assert.equal(calls.collect, 2);
  } finally {
    reclaimer.stop();
  }
});

Deno.test({
  name: "glibcTrim calls malloc_trim on Linux with glibc",
  ignore: Deno.build.os !== "linux",
  fn() {
    const trim = glibcTrim();
    if (!trim) return; // a Linux without glibc (musl): nothing to call, and nothing fails
    trim();
  },
});
