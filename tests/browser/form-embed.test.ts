// The form page in a real browser (Debian chromium through playwright-core), embedded with
// @typeform/embed's own browser bundle (served from its npm package) on a loopback parent page: the
// SDK's callbacks fire from the page's messages (onReady, onStarted, onQuestionChanged,
// onHeightChanged, onSubmit with the response id, onClose), the visitor fills and submits the form
// (validation message, logic jump, hidden fields from the SDK's hash), and the response is stored.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Browser, Frame, Page } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { createClient } from "@typeform/api-client";
import { makeForm } from "../functions/forms-api/support.ts";

const host = await testHost();

const EMBED = new URL("../../node_modules/@typeform/embed/build/", import.meta.url);

const FORM = `# Welcome: Embedded test
> Two slides.
  button: Begin

## About you
name* text: Your name?
color choice: Favourite colour?
  - Red
  - Blue

## Rate us
stars* rating: How many stars?
-> vip if stars = 5
note long text: Anything else?

# Thank you: Thanks!

# Thank you: Five stars, thank you! {#vip}
  show button: no
`;

/** A loopback parent page that loads the SDK's bundle and records every callback in window.events. */
function parentServer(script: string | (() => string)) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/embed.js") {
      return new Response(await Deno.readFile(new URL("embed.js", EMBED)), {
        headers: { "content-type": "text/javascript" },
      });
    }
    if (path.startsWith("/css/")) {
      return new Response(await Deno.readFile(new URL(`css/${path.slice(5)}`, EMBED)), {
        headers: { "content-type": "text/css" },
      });
    }
    return new Response(
      `<!doctype html><html><head><title>Parent</title>
${
        ["widget", "popup", "slider", "popover", "sidetab"].map((c) =>
          `<link rel="stylesheet" href="/css/${c}.css">`
        )
          .join("")
      }</head>
<body><h1>Parent page</h1><div id="form" style="width:600px;height:700px"></div>
<script src="/embed.js"></script>
<script>
window.events = [];
// every message the page posts, as sent (the SDK's callbacks see only some of them)
window.messages = [];
addEventListener("message", (e) => window.messages.push(e.data));
const record = (name) => (data) => window.events.push({ name, data: data ?? null });
const callbacks = { onReady: record("ready"), onStarted: record("started"), onQuestionChanged: record("question"),
  onHeightChanged: record("height"), onSubmit: record("submit"), onClose: record("close") };
${typeof script === "string" ? script : script()}
</script></body></html>`,
      { headers: { "content-type": "text/html" } },
    );
  });
  return { url: `http://127.0.0.1:${server.addr.port}/`, close: () => server.shutdown() };
}

async function events(page: Page): Promise<{ name: string; data: Record<string, unknown> | null }[]> {
  return await page.evaluate(() => (window as unknown as { events: never[] }).events);
}

async function waitForEvent(page: Page, name: string, count = 1) {
  await page.waitForFunction(
    ([n, c]) =>
      (window as unknown as { events: { name: string }[] }).events.filter((e) => e.name === n).length >=
        (c as number),
    [name, count] as const,
    { timeout: 15_000 },
  );
}

async function formFrame(page: Page): Promise<Frame> {
  for (let i = 0; i < 100; i++) {
    const frame = page.frames().find((f) => f.url().includes("/to/"));
    if (frame) return frame;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("no form frame");
}

/** Waits until the form's iframe has stopped moving in the parent (modals slide or fade in). */
async function standingStill(page: Page) {
  let last = "";
  for (let i = 0; i < 60; i++) {
    const box = JSON.stringify(await page.locator("iframe").boundingBox());
    if (box === last && box !== "null") return;
    last = box;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("the form's frame never stood still");
}

let browser: Browser | undefined;
async function launch(): Promise<Browser> {
  browser ??= await launchChromium();
  return browser;
}

test("embedded with createWidget: the SDK's callbacks fire and onSubmit carries the stored response's id", async () => {
  const slug = await makeForm(host, "embed", FORM, { hidden: ["source"] });
  const parent = parentServer(`window.tf.createWidget(${JSON.stringify(`${host.baseUrl}/to/${slug}`)}, {
    container: document.getElementById("form"), hidden: { source: "parent-page" }, autoResize: false, ...callbacks });`);
  const context = await (await launch()).newContext();
  try {
    const page = await context.newPage();
    await page.goto(parent.url);
    await waitForEvent(page, "ready");
    const frame = await formFrame(page);
    const src = new URL(frame.url());
    assert.equal(src.searchParams.get("typeform-embed"), "embed-widget");
    assert.ok(src.searchParams.get("typeform-embed-id"));

    await frame.getByRole("button", { name: "Begin" }).click();
    await waitForEvent(page, "started");
    // a required question left empty: the message, and no moving on
    await frame.getByRole("button", { name: "Continue" }).click();
    await frame.getByText("This question needs an answer.").waitFor();
    await frame.getByLabel("Your name?").fill("Ada");
    // each answer is stored as it is given, before the slide is left
    const token = (await events(page)).find((e) => e.name === "started")!.data!.responseId as string;
    for (let i = 0; i < 50; i++) {
      const [saved] = await host.ctx.sql`select answers from public.form_responses where token = ${token}`;
      if (saved?.answers?.name?.value === "Ada") break;
      if (i === 49) assert.fail("the name was not saved while the visitor was on the slide");
      await new Promise((r) => setTimeout(r, 100));
    }
    await frame.getByLabel("Blue").check();
    await frame.getByRole("button", { name: "Continue" }).click();
    await frame.getByText("How many stars?").waitFor();
    await frame.getByLabel("5", { exact: false }).last().check();
    await frame.getByRole("button", { name: "Submit" }).click();
    await waitForEvent(page, "submit");
    await frame.getByText("Five stars, thank you!").waitFor();

    const seen = await events(page);
    const ready = seen.find((e) => e.name === "ready")!;
    assert.equal(ready.data!.formId, slug);
    const started = seen.find((e) => e.name === "started")!;
    const submit = seen.find((e) => e.name === "submit")!;
    assert.equal(submit.data!.formId, slug);
    const responseId = submit.data!.responseId as string;
    assert.match(responseId, /^[0-9A-Za-z]{32}$/);
    assert.equal(started.data!.responseId, responseId, "onStarted and onSubmit name the same response");
    const questions = seen.filter((e) => e.name === "question").map((e) => e.data!.ref);
    // questions only: a field's ref (or slide-<n>), never the welcome screen or the ending
    assert.deepEqual(questions, ["name", "stars"]);
    const heights = seen.filter((e) => e.name === "height");
    assert.ok(
      heights.length >= 1 &&
        heights.every((h) => typeof h.data!.height === "number" && (h.data!.height as number) > 0),
    );

    // the response the page stored: answers, the slides reached, the ending, the SDK's hidden field
    const [row] = await host.ctx
      .sql`select answers, seen, submitted_at, ending, hidden, metadata from public.form_responses where token = ${responseId}`;
    assert.ok(row.submitted_at);
    assert.equal(row.answers.name.value, "Ada");
    assert.equal(row.answers.color.value.label, "Blue");
    assert.equal(row.answers.stars.value, 5);
    assert.deepEqual(row.seen, ["group-1", "group-2"]);
    assert.equal(row.ending.ref, "vip");
    assert.deepEqual(row.hidden, { source: "parent-page" });
    assert.match(row.metadata.user_agent, /Chrome/);
    assert.equal(row.metadata.referer, parent.url, "the parent page is the referer");

    // the raw messages: form-ready says the form is open, form-theme gives two CSS colours
    const messages = await page.evaluate(() =>
      (window as unknown as { messages: Record<string, unknown>[] }).messages
    );
    const embedId = src.searchParams.get("typeform-embed-id");
    const readyMessage = messages.find((m) => m.type === "form-ready")!;
    assert.deepEqual(readyMessage, { type: "form-ready", embedId, formId: slug, isClosed: false });
    const theme = messages.find((m) => m.type === "form-theme") as { theme: Record<string, string> };
    assert.deepEqual(Object.keys(theme.theme).sort(), ["backgroundColor", "color"]);
    for (const colour of Object.values(theme.theme)) {
      assert.match(colour, /^rgba?\(\d+, \d+, \d+(, [\d.]+)?\)$/);
    }
    assert.ok(messages.every((m) => m.embedId === embedId), "every message names the embed");
  } finally {
    await context.close();
    await parent.close();
  }
});

test("a redirect ending, embedded: the page asks the SDK to redirect, and the parent page goes there", async () => {
  let script = "";
  const withForm = parentServer(() => script);
  const landed = `${withForm.url}landed`;
  const slug = await makeForm(
    host,
    "redirect",
    `q text: Anything?

# Thank you: Off you go
  button: Continue to the site
  button mode: redirect
  redirect: ${landed}
`,
  );
  script = `window.tf.createWidget(${JSON.stringify(`${host.baseUrl}/to/${slug}`)}, {
    container: document.getElementById("form"), ...callbacks });`;
  const context = await (await launch()).newContext();
  try {
    const page = await context.newPage();
    await page.goto(withForm.url);
    await waitForEvent(page, "ready");
    const frame = await formFrame(page);
    await frame.getByLabel("Anything?").fill("no");
    await frame.getByRole("button", { name: "Submit" }).click();
    await waitForEvent(page, "submit");
    await frame.getByRole("button", { name: "Continue to the site" }).click();
    await page.waitForURL(/\/landed$/);
    assert.equal(new URL(page.url()).port, new URL(landed).port);
  } finally {
    await context.close();
    await withForm.close();
  }
});

test("embedded with createPopup: Escape inside the form closes it and fires onClose", async () => {
  const slug = await makeForm(host, "popup", FORM);
  const parent = parentServer(
    `window.popup = window.tf.createPopup(${JSON.stringify(`${host.baseUrl}/to/${slug}`)}, { ...callbacks });
    window.popup.open();`,
  );
  const context = await (await launch()).newContext();
  try {
    const page = await context.newPage();
    await page.goto(parent.url);
    await waitForEvent(page, "ready");
    const frame = await formFrame(page);
    assert.equal(new URL(frame.url()).searchParams.get("typeform-embed"), "popup-blank");
    await frame.getByRole("button", { name: "Begin" }).waitFor();
    await frame.locator("body").press("Escape");
    await waitForEvent(page, "close");
  } finally {
    await context.close();
    await parent.close();
  }
});

test("createPopup, createSlider, createPopover and createSidetab: the visitor answers and submits, the callbacks fire, Escape closes", async () => {
  const modes = [
    ["createPopup", "popup-blank"],
    ["createSlider", "popup-drawer"],
    ["createPopover", "popup-popover"],
    ["createSidetab", "popup-side-panel"],
  ] as const;
  const context = await (await launch()).newContext();
  try {
    for (const [factory, embedType] of modes) {
      const slug = await makeForm(host, "modes", FORM, { hidden: ["source"] });
      const parent = parentServer(
        `window.embed = window.tf.${factory}(${JSON.stringify(`${host.baseUrl}/to/${slug}`)}, {
          hidden: { source: ${JSON.stringify(factory)} }, buttonText: "Open the form", ...callbacks });
        window.embed.open();`,
      );
      try {
        const page = await context.newPage();
        await page.goto(parent.url);
        await waitForEvent(page, "ready");
        const frame = await formFrame(page);
        assert.equal(new URL(frame.url()).searchParams.get("typeform-embed"), embedType, factory);
        // the modal slides or fades in: clicks wait until the form stands still in the parent page
        await standingStill(page);
        await frame.getByRole("button", { name: "Begin" }).click();
        await waitForEvent(page, "started");
        await frame.getByLabel("Your name?").fill("Ada");
        await frame.getByRole("button", { name: "Continue" }).click();
        await frame.locator('[data-ref="stars"] input[value="4"]').check();
        await frame.getByRole("button", { name: "Submit" }).click();
        await waitForEvent(page, "submit");
        await frame.getByText("Thanks!").waitFor();

        const seen = await events(page);
        const responseId = seen.find((e) => e.name === "submit")!.data!.responseId;
        assert.equal(seen.find((e) => e.name === "started")!.data!.responseId, responseId, factory);
        assert.deepEqual(
          seen.filter((e) => e.name === "question").map((e) => e.data!.ref),
          ["name", "stars"],
          factory,
        );
        // each height names the screen it measured: the last one is the ending's
        await page.waitForFunction(() =>
          (window as unknown as { events: { name: string; data: { ref?: string } }[] }).events
            .filter((e) => e.name === "height").at(-1)?.data.ref === "default_tys"
        );
        const [row] = await host.ctx
          .sql`select submitted_at, hidden, answers from public.form_responses where token = ${responseId as string}`;
        assert.ok(row?.submitted_at, factory);
        assert.deepEqual(row.hidden, { source: factory }, "the SDK's hidden field, from the hash");
        assert.equal(row.answers.stars.value, 4);

        await frame.locator("body").press("Escape");
        await waitForEvent(page, "close");
        await page.close();
      } finally {
        await parent.close();
      }
    }
  } finally {
    await context.close();
  }
});

test("insights count real page visits: views and dropoffs per field, visits per platform, completion and time", async () => {
  const slug = await makeForm(
    host,
    "visits",
    `# Welcome: Hello
  button: Begin

## One
name* text: Your name?

## Two
stars rating: How many stars?

# Thank you: Thanks!
`,
  );
  const rows = () =>
    host.ctx
      .sql`select token, platform, seen, submitted_at, landed_at from public.form_responses where form = ${slug}`;
  const until = async (what: string, ok: (r: Awaited<ReturnType<typeof rows>>) => boolean) => {
    for (let i = 0; i < 100; i++) {
      if (ok(await rows())) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`never stored: ${what}`);
  };
  const desktop = await (await launch()).newContext();
  const phone = await (await launch()).newContext({
    userAgent:
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
    viewport: { width: 390, height: 800 },
  });
  try {
    // a desktop visitor answers both slides and submits
    const done = await desktop.newPage();
    await done.goto(`${host.baseUrl}/to/${slug}`);
    await done.getByRole("button", { name: "Begin" }).click();
    await done.getByLabel("Your name?").fill("Ada");
    await done.getByRole("button", { name: "Continue" }).click();
    await done.getByText("How many stars?").waitFor();
    await done.getByRole("button", { name: "Submit" }).click();
    await done.getByText("Thanks!").waitFor();
    // a phone visitor starts, answers the first slide's question and leaves there
    const left = await phone.newPage();
    await left.goto(`${host.baseUrl}/to/${slug}`);
    await left.getByRole("button", { name: "Begin" }).click();
    await left.getByLabel("Your name?").fill("Bo");
    // a second desktop visitor only looks at the welcome screen
    const looked = await desktop.newPage();
    await looked.goto(`${host.baseUrl}/to/${slug}`);
    await looked.getByRole("button", { name: "Begin" }).waitFor();
    await until(
      "three landings, the phone's first slide",
      (r) => r.length === 3 && r.some((x) => x.platform === "phone" && x.seen.includes("group-1")),
    );
  } finally {
    await desktop.close();
    await phone.close();
  }

  const [completed] = (await rows()).filter((r) => r.submitted_at);
  const seconds = Math.round((completed.submitted_at.getTime() - completed.landed_at.getTime()) / 1000);
  const client = createClient({ token: await host.key("forms"), apiBaseUrl: `${host.baseUrl}/api` });
  const summary = await client.insights.summary({ uid: slug });
  assert.deepEqual(
    summary.fields!.map((f) => [f.ref, f.views, f.dropoffs]),
    [["name", 2, 1], ["stars", 1, 0]],
    "two reached slide one, one left there; one reached slide two and submitted",
  );
  assert.deepEqual(summary.form!.summary, {
    responses_count: 1,
    total_visits: 3,
    unique_visits: 1, // one network (loopback)
    completion_rate: 33.3,
    average_time: seconds,
  });
  const platforms = Object.fromEntries(summary.form!.platforms!.map((p) => [p.platform, p]));
  assert.deepEqual(Object.keys(platforms).sort(), ["desktop", "phone"]);
  assert.deepEqual(
    [platforms.desktop.total_visits, platforms.desktop.responses_count, platforms.desktop.completion_rate],
    [2, 1, 50],
  );
  assert.deepEqual(
    [platforms.phone.total_visits, platforms.phone.responses_count, platforms.phone.completion_rate],
    [1, 0, 0],
  );
});

test("the form page on its own: a quiz shows its score on the thank-you screen, without posting messages", async () => {
  const context = await (await launch()).newContext({ viewport: { width: 390, height: 800 } });
  try {
    const page = await context.newPage();
    await page.goto(`${host.baseUrl}/form/trivia?utm_source=test`);
    await page.getByRole("button", { name: "Start" }).click();
    await page.getByLabel("Paris").check();
    await page.getByLabel("In which year did the harbor open (1850 to 1900)?").fill("1700");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByText("Please enter a number of at least 1850.").waitFor();
    await page.getByLabel("In which year did the harbor open (1850 to 1900)?").fill("1871");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByLabel("Blue").check();
    await page.getByLabel("White").check();
    const progress = await page.getByRole("progressbar").getAttribute("aria-valuenow");
    assert.equal(progress, "1");
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByText("A perfect round!").waitFor();
    await page.getByText("Your score: 3").waitFor();
  } finally {
    await context.close();
  }
});

test("a welcome screen without a button starts the form with Enter; a reload ending starts it again", async () => {
  const slug = await makeForm(
    host,
    "buttonless",
    `# Welcome: No button here
  show button: no

q text: Anything?

# Thank you: Done
  button: Once more
`,
  );
  const context = await (await launch()).newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${host.baseUrl}/to/${slug}`);
    await page.getByText("Press Enter or tap to start").waitFor();
    await page.keyboard.press("Enter");
    await page.getByLabel("Anything?").fill("yes");
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByRole("button", { name: "Once more" }).click();
    await page.getByText("Press Enter or tap to start").waitFor();
  } finally {
    await context.close();
  }
});

test("the demo feedback form in the browser: every question type, file upload, numbers, progress and errors marked for assistive technology", async () => {
  const context = await (await launch()).newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${host.baseUrl}/to/feedback?utm_source=walk#ticket=T1`);
    assert.equal(
      await page.locator("main#form").getAttribute("aria-live"),
      null,
      "the page is not one live region",
    );
    const status = page.locator("#form-status");
    assert.equal(await status.getAttribute("aria-live"), "polite");
    await page.getByRole("button", { name: "Let's go" }).click();
    assert.deepEqual(await page.locator(".number").allTextContents(), ["1.", "2.", "3.", "4."]);
    assert.equal(await page.locator(".progress-text").textContent(), "0 of 4 answered");
    assert.equal(await status.textContent(), "Slide 1 of 4");

    // required answers missing: each question's control is marked invalid and described by its message
    await page.getByRole("button", { name: "Continue" }).click();
    const name = page.getByLabel("What should we call you?");
    const email = page.getByLabel("Where can we send the slides?");
    await page.locator('[data-ref="name"] .error').getByText("This question needs an answer.").waitFor();
    for (const control of [name, email]) {
      assert.equal(await control.getAttribute("aria-invalid"), "true");
      const described = (await control.getAttribute("aria-describedby"))!.split(" ");
      const message = page.locator('[role="alert"]', { hasText: "This question needs an answer." }).filter({
        has: page.locator(`xpath=self::*[@id="${described.at(-1)}"]`),
      });
      assert.equal(await message.count(), 1, "aria-describedby names the message");
    }
    // the server refuses the address: only that question stays invalid
    await name.fill("Ada");
    await email.fill("not-an-email");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.locator('[data-ref="email"] .error:not([hidden])').waitFor();
    assert.equal(await email.getAttribute("aria-invalid"), "true");
    assert.equal(await name.getAttribute("aria-invalid"), null, "a question answered is no longer invalid");
    await email.fill("ada@example.com");
    await page.getByLabel("Your website, if you have one").fill("ada.example");
    await page.getByLabel("A number for the raffle draw").fill("+49 30 1234567");
    await page.getByRole("button", { name: "Continue" }).click();

    await page.getByText("How was the evening overall?").waitFor();
    assert.equal(await page.locator(".progress-text").textContent(), "1 of 4 answered");
    await page.locator('[data-ref="overall"] input[value="3"]').check();
    await page.locator('[data-ref="recommend"] input[value="6"]').check();
    await page.getByLabel("Keynote").check();
    await page.getByLabel("Panel").check();
    await page.locator('[data-ref="talks"] .other input').fill("Hallway track");
    await page.getByRole("button", { name: "Continue" }).click();

    await page.getByText("What should we change?").waitFor();
    await page.getByLabel("What should we change?").fill("More chairs");
    const venue = page.getByLabel("Which venue suits you best?");
    assert.deepEqual(await venue.locator("option").allTextContents(), [
      "Choose…",
      "City library",
      "Harbor hall",
      "Old school",
    ]);
    await venue.selectOption({ label: "Old school" });
    await page.getByRole("button", { name: "Continue" }).click();

    await page.getByText("Almost done!").waitFor();
    await page.getByLabel("How many friends would you bring next time?").fill("3");
    await page.locator('[data-ref="first"] input').fill("2024-05-01");
    await page.locator('[data-ref="photo"] input[type=file]').setInputFiles({
      name: "evening.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("a photo, in words"),
    });
    await page.getByText("Uploaded: evening.txt").waitFor();
    const pictures = await page.locator('[data-ref="snack"] img').evaluateAll((els) =>
      els.map((e) => e.getAttribute("src") ?? "")
    );
    assert.equal(pictures.length, 2);
    for (const src of pictures) {
      assert.match(src, /^\/\/[^/]+\/api\/media\//, "a media/ picture is served by the images door");
      const picture = await fetch(`${new URL(host.baseUrl).protocol}${src}`);
      assert.equal(picture.status, 200);
      assert.match(picture.headers.get("content-type") ?? "", /^image\//);
      await picture.body?.cancel();
    }
    await page.getByLabel("Fruit").check();
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByText("Thanks, see you next time!").waitFor();
    assert.equal(await status.textContent(), "Your answers have been sent.");

    const [row] = await host.ctx.sql`select token, answers, hidden, seen, ending, submitted_at
      from public.form_responses where form = 'feedback' and answers -> 'name' ->> 'value' = 'Ada'
      and answers -> 'improve' ->> 'value' = 'More chairs' order by landed_at desc limit 1`;
    assert.ok(row?.submitted_at, "the response was submitted");
    const value = (ref: string) => row.answers[ref]?.value;
    assert.equal(value("email"), "ada@example.com");
    assert.equal(value("site"), "https://ada.example");
    assert.equal(value("phone"), "+49 30 1234567");
    assert.equal(value("overall"), 3);
    assert.equal(value("recommend"), 6);
    assert.deepEqual(value("talks").labels, ["Keynote", "Panel", "Hallway track"]);
    assert.equal(value("venue").label, "Old school");
    assert.equal(value("guests"), 3);
    assert.equal(value("first"), "2024-05-01");
    assert.equal(row.answers.photo.type, "file_url");
    assert.equal(value("photo").name, "evening.txt");
    assert.equal(value("snack").label, "Fruit");
    assert.deepEqual(row.hidden, { utm_source: "walk", ticket: "T1" });
    assert.deepEqual(row.seen, ["group-1", "evening", "improve-slide", "group-4"]);
    assert.equal(row.ending.ref, "default_tys");
    const [file] = await host.ctx.sql`select size from public.storage_objects
      where bucket = 'form-uploads' and key = ${value("photo").key}`;
    assert.equal(file.size, Buffer.from("a photo, in words").length, "the file's bytes were stored");
  } finally {
    await context.close();
  }
});

test("settings the runner follows: no progress bar, no question numbers, and with autosave off answers go when the slide is left", async () => {
  const slug = await makeForm(
    host,
    "quiet",
    `## One\nname text: Your name?\nmail email: Your email?\n\n## Two\nnote text: Anything else?\n`,
    { show_progress_bar: false, show_question_number: false, autosave_progress: false },
  );
  const context = await (await launch()).newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${host.baseUrl}/to/${slug}`);
    await page.getByLabel("Your name?").fill("Quiet");
    assert.equal(await page.getByRole("progressbar").count(), 0);
    assert.equal(await page.locator(".number").count(), 0);
    // well past the autosave pause: nothing is stored while the visitor stays on the slide
    await new Promise((r) => setTimeout(r, 1500));
    const stored = async () =>
      (await host.ctx.sql`select answers from public.form_responses where form = ${slug}`).map((r) =>
        r.answers
      );
    assert.deepEqual(await stored(), [{}]);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByLabel("Anything else?").waitFor();
    assert.equal((await stored())[0].name?.value, "Quiet", "leaving the slide stored its answers");
  } finally {
    await context.close();
  }
});

test("a redirect ending on the page itself (not embedded) takes the visitor to the address", async () => {
  const target = parentServer("");
  const slug = await makeForm(
    host,
    "goto",
    `q text: Anything?\n\n# Thank you: Bye\n  button: Onwards\n  button mode: redirect\n  redirect: ${target.url}landed\n`,
  );
  const context = await (await launch()).newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${host.baseUrl}/to/${slug}`);
    await page.getByLabel("Anything?").fill("no");
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByRole("button", { name: "Onwards" }).click();
    await page.waitForURL(`${target.url}landed`);
  } finally {
    await context.close();
    await target.close();
  }
});

test("embedded with onEndingButtonClick: the ending's button tells the parent instead of acting", async () => {
  let script = "";
  const parent = parentServer(() => script);
  const slug = await makeForm(
    host,
    "endclick",
    `q text: Anything?\n\n# Thank you: Bye {#bye}\n  button: Onwards\n  button mode: redirect\n  redirect: ${parent.url}landed\n`,
  );
  script = `window.tf.createWidget(${JSON.stringify(`${host.baseUrl}/to/${slug}`)}, {
    container: document.getElementById("form"), ...callbacks, onEndingButtonClick: record("ending-button") });`;
  const context = await (await launch()).newContext();
  try {
    const page = await context.newPage();
    await page.goto(parent.url);
    await waitForEvent(page, "ready");
    const frame = await formFrame(page);
    assert.equal(new URL(frame.url()).searchParams.get("typeform-embed-handle-ending-button-click"), "true");
    await frame.getByLabel("Anything?").fill("no");
    await frame.getByRole("button", { name: "Submit" }).click();
    await waitForEvent(page, "submit");
    await frame.getByRole("button", { name: "Onwards" }).click();
    await waitForEvent(page, "ending-button");
    const messages = await page.evaluate(() =>
      (window as unknown as { messages: Record<string, unknown>[] }).messages
    );
    const click = messages.find((m) => m.type === "thank-you-screen-button-click")!;
    assert.equal(click.ref, "bye");
    assert.equal(new URL(page.url()).pathname, "/", "the parent stayed where it was");
    assert.equal(new URL(frame.url()).pathname, `/to/${slug}`, "the form did not go anywhere either");
  } finally {
    await context.close();
    await parent.close();
  }
});

test("an unknown form is a 404 page", async () => {
  const context = await (await launch()).newContext();
  try {
    const page = await context.newPage();
    const res = await page.goto(`${host.baseUrl}/to/no-such-form`);
    assert.equal(res?.status(), 404);
    await page.getByText("This form does not exist or is no longer published.").waitFor();
  } finally {
    await context.close();
    await browser?.close();
    browser = undefined;
  }
});
