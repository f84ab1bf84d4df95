// One load run with autocannon (npm), under Node 22 in a process of its own, so the load generator never
// shares an event loop with a server it measures. Reads one JSON job from standard input:
//   { url, method, headers, body, keys: { header, prefix, values }, connections, seconds }
// (`keys` rotates a credential per request, as many clients of one site would present), runs it, and
// prints one JSON line: requests per second, latency percentiles and what went wrong.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const AUTOCANNON = "autocannon"; // through a variable: the project's type check must not resolve it
const autocannon = require(AUTOCANNON);

let input = "";
for await (const chunk of process.stdin) input += chunk;
const job = JSON.parse(input);

let turn = 0;
const headers = { ...(job.headers ?? {}) };
const result = await autocannon({
  url: job.url,
  connections: job.connections,
  duration: job.seconds,
  // a slow answer is counted, not dropped as an error at autocannon's default 10 s
  timeout: 60,
  requests: [{
    method: job.method ?? "GET",
    ...(job.body ? { body: job.body } : {}),
    setupRequest(request) {
      if (!job.keys) return request;
      const value = job.keys.values[turn++ % job.keys.values.length];
      return {
        ...request,
        headers: { ...headers, ...request.headers, [job.keys.header]: `${job.keys.prefix ?? ""}${value}` },
      };
    },
  }],
  headers,
});

process.stdout.write(
  JSON.stringify({
    requests_per_second: result.requests.average,
    requests: result.requests.total,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  }) + "\n",
);
