// How a partial run (BENCH_ONLY) merges into the results file a full run wrote.

export interface ResultEntry {
  name: string;
  database?: string;
  [figure: string]: unknown;
}

/**
 * The entries of the file once this run's are in: this run's replace the entries of the same name
 * measured on the same database; every other entry stays as the run that measured it left it (its time
 * and database), so the same read on PGlite and on a server stand side by side. An entry without its own
 * database was measured by the full run the file names at its top.
 */
export function mergedResults(
  previous: { database?: string; results: ResultEntry[] } | undefined,
  run: ResultEntry[],
  database: string,
): ResultEntry[] {
  const kept = (previous?.results ?? []).filter((old) =>
    (old.database ?? previous?.database) !== database || !run.some((entry) => entry.name === old.name)
  );
  return [...kept, ...run];
}
