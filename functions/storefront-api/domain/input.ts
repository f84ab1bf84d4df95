// What the store accepts as text from a client before any of it reaches Postgres: Postgres text and
// jsonb hold neither the NUL character nor a lone UTF-16 surrogate (jsonb refuses `\ud800`; text would
// store U+FFFD instead of what was sent), so such strings are refused as bad input at the door of every
// route (the JSON bodies, GraphQL variables and literals, cursors) instead of failing inside a query.

/** Whether Postgres can hold the string as it is: no NUL, no lone surrogate. */
export function storableText(value: string): boolean {
  return !value.includes("\u0000") && value.isWellFormed();
}

/**
 * The path of the first string inside a JSON value (keys included) that Postgres cannot hold, or
 * undefined when every string is storable. Walks iteratively so a deeply nested body cannot overflow.
 */
export function unstorablePath(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, "$"]];
  while (stack.length) {
    const [item, path] = stack.pop()!;
    if (typeof item === "string") {
      if (!storableText(item)) return path;
    } else if (Array.isArray(item)) {
      item.forEach((v, i) => stack.push([v, `${path}[${i}]`]));
    } else if (item && typeof item === "object") {
      for (const [key, v] of Object.entries(item)) {
        if (!storableText(key)) return path;
        stack.push([v, `${path}.${key}`]);
      }
    }
  }
  return undefined;
}

/**
 * An email address as the store takes it: one @, a dot in the domain, no spaces or control characters,
 * at most 254 characters (the checkout, the sign-in and a cart's buyer identity share this rule).
 */
export function isEmail(value: string): boolean {
  return value.length <= 254 &&
    /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u.test(value);
}

/** A two-letter country code (ISO 3166-1 alpha-2 shape), upper case. */
export const isCountryCode = (value: string): boolean => /^[A-Z]{2}$/.test(value);

/** A cart's token: the secret part of its id and of its checkout address. */
export const isCartToken = (value: string): boolean => /^[0-9A-Za-z]{32}$/.test(value);
