// Management writes racing at one id (cloud mode). Only a real PostgreSQL server (CI's TEST_DATABASE_URL
// pass) runs these transactions side by side; PGlite runs them one after another, so there the tests
// check the same answers without the overlap.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { call, env, inCloudMode, makerKey, pngBytes, space, unique } from "./management-support.ts";

const ARTICLE = { "x-contentful-content-type": "article" };
const RACERS = 6;
const PUT_LOST = /already exists|X-Contentful-Version/;

/**
 * Every answer is 201 or 409 VersionMismatch (never a 5xx), and exactly one is 201. A racer that lost
 * inside the insert hears the id already exists; a PUT racer arriving after the winner committed finds
 * an entity to replace and is asked for its version instead: both are the right 409.
 */
function oneCreated(answers: { status: number; body: any }[], what: string, lost = /already exists/): any {
  const statuses = answers.map((r) => r.status);
  assert.deepEqual(
    statuses.filter((s) => s !== 201 && s !== 409),
    [],
    `${what}: ${JSON.stringify(answers.map((r) => r.body))}`,
  );
  assert.equal(statuses.filter((s) => s === 201).length, 1, `${what}: ${statuses}`);
  for (const loser of answers.filter((r) => r.status === 409)) {
    assert.equal(loser.body.sys.id, "VersionMismatch");
    assert.match(loser.body.message, lost);
  }
  return answers.find((r) => r.status === 201)!.body;
}

/** Every answer is a success or 409 VersionMismatch, and exactly one succeeds. */
function oneWins(answers: { status: number; body: any }[], success: number, what: string): void {
  const statuses = answers.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === success).length, 1, `${what}: ${statuses}`);
  assert.equal(statuses.filter((s) => s === 409).length, RACERS - 1, `${what}: ${statuses}`);
}

test("creates racing at one id: exactly one 201, the others 409 VersionMismatch (POST, PUT entry, PUT asset)", async () => {
  const { key } = await makerKey();
  await inCloudMode(async () => {
    const slug = unique("race");
    const posted = await Promise.all(
      Array.from({ length: RACERS }, () =>
        call("POST", `${env}/entries`, key, {
          fields: { title: { "en-US": "Race" }, slug: { "en-US": slug } },
        }, ARTICLE)),
    );
    const entry = oneCreated(posted, "POST entries");
    assert.equal(entry.sys.id, `article.${slug}`);

    const id = `article.${unique("race-put")}`;
    const put = await Promise.all(
      Array.from(
        { length: RACERS },
        (_, i) => call("PUT", `${env}/entries/${id}`, key, { fields: { title: { "en-US": `Racer ${i}` } } }),
      ),
    );
    oneCreated(put, "PUT entries/<id>", PUT_LOST);

    const upload = await call("POST", `${space}/uploads`, key, pngBytes(2, 2), {
      "content-type": "application/octet-stream",
    });
    const file = {
      "en-US": {
        fileName: "race.png",
        uploadFrom: { sys: { type: "Link", linkType: "Upload", id: upload.body.sys.id } },
      },
    };
    const assetId = unique("race-asset");
    const assets = await Promise.all(
      Array.from(
        { length: RACERS },
        () => call("PUT", `${env}/assets/${assetId}`, key, { fields: { file } }),
      ),
    );
    oneCreated(assets, "PUT assets/<id>", PUT_LOST);

    for (const path of [`entries/${entry.sys.id}`, `entries/${id}`, `assets/${assetId}`]) {
      await call("DELETE", `${env}/${path}`, key);
    }
  });
});

test("publish and process racing with the same version: one succeeds, the others 409 VersionMismatch", async () => {
  const { key } = await makerKey();
  await inCloudMode(async () => {
    const made = await call("POST", `${env}/entries`, key, {
      fields: { title: { "en-US": unique("Publish race") } },
    }, ARTICLE);
    const publishes = await Promise.all(
      Array.from(
        { length: RACERS },
        () =>
          call("PUT", `${env}/entries/${made.body.sys.id}/published`, key, undefined, {
            "x-contentful-version": String(made.body.sys.version),
          }),
      ),
    );
    oneWins(publishes, 200, "publish");
    const after = await call("GET", `${env}/entries/${made.body.sys.id}`, key);
    assert.equal(after.body.sys.publishedCounter, 1, "published once");

    const upload = await call("POST", `${space}/uploads`, key, pngBytes(3, 3), {
      "content-type": "application/octet-stream",
    });
    const asset = await call("POST", `${env}/assets`, key, {
      fields: {
        file: {
          "en-US": {
            fileName: "p.png",
            uploadFrom: { sys: { type: "Link", linkType: "Upload", id: upload.body.sys.id } },
          },
        },
      },
    });
    const processes = await Promise.all(
      Array.from(
        { length: RACERS },
        () =>
          call("PUT", `${env}/assets/${asset.body.sys.id}/files/en-US/process`, key, undefined, {
            "x-contentful-version": String(asset.body.sys.version),
          }),
      ),
    );
    oneWins(processes, 204, "process");
    const processed = await call("GET", `${env}/assets/${asset.body.sys.id}`, key);
    assert.deepEqual(processed.body.fields.file["en-US"].details.image, { width: 3, height: 3 });

    await call("DELETE", `${env}/entries/${made.body.sys.id}`, key);
    await call("DELETE", `${env}/assets/${asset.body.sys.id}`, key);
  });
});
