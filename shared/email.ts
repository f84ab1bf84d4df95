// The shape of an email address every API takes: text, one @, a domain with a dot, no white space. It is
// loose on purpose (mail proves an address, a pattern cannot); an API adds what its own door needs (no
// control characters, text Postgres can hold) beside it.

/** An email address's shape, length aside. */
export const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Whether `value` is text shaped like an email address of at most 254 characters (RFC 5321's path). */
export function isEmailAddress(value: unknown): value is string {
  return typeof value === "string" && value.length <= 254 && EMAIL_SHAPE.test(value);
}
