// Secrets the functions sign with (sync tokens, signed addresses, local person JWTs). Each is created
// once, at random, and kept in site_secrets so every instance signs alike.
import type { Db } from "./db.ts";
import { randomBase62 } from "./ids.ts";

export interface Secrets {
  get(name: string): Promise<string>;
}

export function databaseSecrets(db: Db, overrides: Record<string, string | undefined> = {}): Secrets {
  const cache = new Map<string, Promise<string>>();
  return {
    get(name) {
      const fixed = overrides[name];
      if (fixed) return Promise.resolve(fixed);
      let value = cache.get(name);
      if (!value) {
        value = (async () => {
          const [row] = await db<{ value: string }[]>`
            with created as (
              insert into public.site_secrets (name, value) values (${name}, ${randomBase62(48)})
              on conflict (name) do nothing returning value
            )
            select value from created union all select value from public.site_secrets where name = ${name}
            limit 1`;
          if (row) return row.value;
          // another instance made it at the same moment: the insert waited for theirs and did nothing,
          // but this statement's snapshot is older than their commit; a new statement sees it
          const [made] = await db<{ value: string }[]>`select value from public.site_secrets where name = ${name}`;
          return made.value;
        })();
        value.catch(() => cache.delete(name));
        cache.set(name, value);
      }
      return value;
    },
  };
}
