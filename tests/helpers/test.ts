// Deno.test with the resource/op sanitizers off: tests share a long-lived database pool and HTTP host,
// which the sanitizers would otherwise report as leaks after every test.
export function test(name: string, fn: (t: Deno.TestContext) => void | Promise<void>): void {
  Deno.test({ name, fn, sanitizeResources: false, sanitizeOps: false });
}
