// Small helpers every CLI task shares: one clear line on failure, and finding the database.
export function fail(message: string): never {
  console.error(`error: ${message}`);
  Deno.exit(1);
}

/** Where the dev host keeps its data (the embedded database and dev.json): DATA_DIR, else `.data/`. */
export function dataDir(): string {
  return (Deno.env.get("DATA_DIR") ?? new URL("../.data", import.meta.url).pathname).replace(/\/+$/, "");
}

/** The dev host's keys and people for scripts (dev.json in the data directory). */
export function devStateFile(): string {
  return `${dataDir()}/dev.json`;
}

export interface DevState {
  base_url: string;
  database_url: string;
  space: string;
  keys: Record<string, string>;
  people: Record<string, { email: string; jwt: string }>;
  /** a member who can sign a Bluesky app in at once (the same person as people.member), and a second one */
  network?: { handle: string; did: string; app_password: string };
  network2?: { handle: string; did: string; app_password: string };
}

export async function readDevState(): Promise<DevState | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(devStateFile()));
  } catch {
    return undefined;
  }
}

/** DATABASE_URL when set, else the running dev host's embedded socket. */
export async function databaseUrlOrExit(): Promise<string> {
  const url = Deno.env.get("DATABASE_URL") ?? Deno.env.get("SUPABASE_DB_URL") ??
    (await readDevState())?.database_url;
  if (!url) fail("no database: start the dev host (deno task dev) or set DATABASE_URL");
  return url;
}

/** Runs main and turns any thrown error into one line, so CLI users never see a stack trace. */
export async function runCli(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
}
