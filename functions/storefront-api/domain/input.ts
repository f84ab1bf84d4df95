// The store's rules for client text: what Postgres can hold (shared/input-text.ts, checked at the door of
// every route: JSON bodies, GraphQL variables and literals, cursors), and the shapes of an email, a country
// code and a cart token.

import { isEmailAddress } from "../../../shared/email.ts";
import { jsonPathText, jsonProblem, storableText } from "../../../shared/input-text.ts";

export { storableText };

/**
 * The path (`$.lines[1].sku`) of the first string inside a JSON value, keys included, that Postgres
 * cannot hold, or undefined when every string is storable. The store bounds a body's size, not its depth.
 */
export function unstorablePath(value: unknown): string | undefined {
  const problem = jsonProblem(value, Infinity);
  return problem ? jsonPathText(["$", ...problem.path]) : undefined;
}

/**
 * An email address as the store takes it: every API's shape (shared/email.ts), and no control characters
 * (the checkout, the sign-in and a cart's buyer identity share this rule).
 */
export function isEmail(value: string): boolean {
  return isEmailAddress(value) && !/\p{Cc}/u.test(value);
}

/** A two-letter country code (ISO 3166-1 alpha-2 shape), upper case. */
export const isCountryCode = (value: string): boolean => /^[A-Z]{2}$/.test(value);

/** A cart's token: the secret part of its id and of its checkout address. */
export const isCartToken = (value: string): boolean => /^[0-9A-Za-z]{32}$/.test(value);
