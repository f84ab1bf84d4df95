// The load generator of the bench's concurrency phase (bench/load.ts starts it): autocannon, in a process
// of its own so that generating the load never shares an event loop with the host it measures. It reads
// one plan (a JSON line) on standard input, checks every scenario's answers once, then runs each scenario
// at each connection count and writes one JSON line per event on standard output. Before each run it
// says "ready" and waits for a line on standard input: the bench answers once the host has finished the
// requests the previous run dropped when its time was up, so no run measures another's backlog.
import autocannon from "autocannon";

/** One request of a scenario; `{{name}}` in path or body is replaced by what an earlier answer captured. */
export interface LoadRequest {
  method?: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** keep this value of the JSON answer (a path of property names) for the requests after it */
  capture?: { as: string; from: string[] };
}

export interface LoadScenario {
  name: string;
  requests: LoadRequest[];
  /** the answers are GraphQL: a 200 whose errors are other than unresolvable links is a failure */
  graphql?: boolean;
}

export interface LoadPlan {
  origin: string;
  scenarios: LoadScenario[];
  connections: number[];
  /** seconds each scenario runs at each connection count */
  seconds: number;
  /** seconds of load at the highest connection count before the first measured run of a scenario */
  warmupSeconds: number;
}

export interface LevelFigures {
  connections: number;
  requests: number;
  seconds: number;
  requests_per_second: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  non_2xx: number;
  errors: number;
  timeouts: number;
  status_codes: Record<string, number>;
}

export type LoadEvent =
  | { event: "checked"; scenario: string }
  | { event: "ready" }
  | { event: "finished" }
  | { event: "start"; scenario: string; connections: number; warmup: boolean }
  | { event: "done"; scenario: string; figures: LevelFigures }
  | { event: "failed"; scenario: string; message: string };

type Context = Record<string, string>;

const fill = (text: string | undefined, context: Context) =>
  text?.replace(/\{\{(\w+)\}\}/g, (_, name) => {
    if (!(name in context)) throw new Error(`nothing captured as ${name} yet`);
    return context[name];
  });

function capture(request: LoadRequest, body: string, context: Context) {
  if (!request.capture) return;
  let value: any = JSON.parse(body);
  for (const step of request.capture.from) value = value?.[step];
  if (typeof value !== "string") throw new Error(`the answer has no ${request.capture.from.join(".")}`);
  context[request.capture.as] = value;
}

/** One pass through the scenario with fetch: every answer a 2xx, GraphQL answers without real errors. */
async function check(origin: string, scenario: LoadScenario): Promise<void> {
  const context: Context = {};
  for (const request of scenario.requests) {
    const res = await fetch(`${origin}${fill(request.path, context)}`, {
      method: request.method ?? "GET",
      headers: request.headers,
      body: fill(request.body, context),
    });
    const body = await res.text();
    if (res.status < 200 || res.status >= 300) {
      throw new Error(`${request.method ?? "GET"} ${request.path}: HTTP ${res.status} ${body.slice(0, 300)}`);
    }
    if (scenario.graphql) {
      const errors = (JSON.parse(body).errors ?? []) as { extensions?: { contentful?: { code?: string } } }[];
      const real = errors.filter((e) => e.extensions?.contentful?.code !== "UNRESOLVABLE_LINK");
      if (real.length) throw new Error(`${request.path}: GraphQL errors ${JSON.stringify(real).slice(0, 300)}`);
    }
    capture(request, body, context);
  }
}

async function run(origin: string, scenario: LoadScenario, connections: number, seconds: number): Promise<LevelFigures> {
  const requests = scenario.requests.map((request) => {
    const dynamic = /\{\{/.test(request.path + (request.body ?? ""));
    return {
      method: request.method ?? "GET",
      path: request.path,
      headers: request.headers,
      body: request.body,
      ...(dynamic
        ? {
          setupRequest: (req: Record<string, unknown>, context: Context) => ({
            ...req,
            path: fill(request.path, context),
            body: fill(request.body, context),
          }),
        }
        : {}),
      ...(request.capture
        ? { onResponse: (_status: number, body: string, context: Context) => capture(request, body, context) }
        : {}),
    };
  });
  const result = await autocannon({ url: origin, connections, duration: seconds, requests });
  const elapsed = (Number(result.finish) - Number(result.start)) / 1000 || seconds;
  return {
    connections,
    requests: result.requests.total,
    seconds: elapsed,
    requests_per_second: result.requests.total / elapsed,
    p50_ms: result.latency.p50,
    p90_ms: result.latency.p90,
    p99_ms: result.latency.p99,
    max_ms: result.latency.max,
    non_2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    status_codes: Object.fromEntries(
      Object.entries((result.statusCodeStats ?? {}) as Record<string, { count: number }>).map(([code, s]) => [code, s.count]),
    ),
  };
}

const say = (event: LoadEvent) => console.log(JSON.stringify(event));

if (import.meta.main) {
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const nextLine = async (): Promise<string> => {
    while (!buffered.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error("the bench closed the load generator's input");
      buffered += value;
    }
    const at = buffered.indexOf("\n");
    const line = buffered.slice(0, at);
    buffered = buffered.slice(at + 1);
    return line;
  };
  const go = async () => {
    say({ event: "ready" });
    await nextLine();
  };
  const plan = JSON.parse(await nextLine()) as LoadPlan;
  for (const scenario of plan.scenarios) {
    try {
      await check(plan.origin, scenario);
      say({ event: "checked", scenario: scenario.name });
      if (plan.warmupSeconds > 0) {
        const most = Math.max(...plan.connections);
        await go();
        say({ event: "start", scenario: scenario.name, connections: most, warmup: true });
        await run(plan.origin, scenario, most, plan.warmupSeconds);
      }
      for (const connections of plan.connections) {
        await go();
        say({ event: "start", scenario: scenario.name, connections, warmup: false });
        say({ event: "done", scenario: scenario.name, figures: await run(plan.origin, scenario, connections, plan.seconds) });
      }
    } catch (error) {
      say({ event: "failed", scenario: scenario.name, message: error instanceof Error ? error.message : String(error) });
    }
  }
  // stop reading standard input, which would otherwise keep this process alive until the bench closes it
  await lines.cancel();
  say({ event: "finished" });
}
