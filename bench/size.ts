// How big each bench part runs. BENCH_ITERATIONS below 5 is the quick smoke run (`cli.test.ts` runs it
// inside the suite): every part at a small N and no reference peers installed, so it proves the bench
// still runs end to end in seconds; its figures mean nothing. A part's own variable still wins.

export const ITERATIONS = Number(Deno.env.get("BENCH_ITERATIONS") ?? 60);
export const QUICK = ITERATIONS < 5;

/** The size named by `variable` if set, else `full` for a measuring run and `quick` for a smoke run. */
export function benchSize(variable: string, full: number, quick: number): number {
  const set = Deno.env.get(variable);
  return set ? Number(set) : QUICK ? quick : full;
}

/** Whether to install and start the reference peers on npm: BENCH_REFERENCE=on|off, off in a smoke run. */
export function referenceWanted(): boolean {
  const set = Deno.env.get("BENCH_REFERENCE");
  return set ? set !== "off" : !QUICK;
}
