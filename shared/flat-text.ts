// Strings an answer is serialised from, made flat. V8's JSON.stringify keeps to its fast path only while
// every string it meets is one sequential run of characters: a `+` or template literal of 13 characters
// or more makes a rope (a pair of strings), and a slice or regex replacement of that length a view into
// its parent. One such string anywhere in an answer sends the whole answer down the slow path: the
// store's page of 250 products (486 KB) took 4.5 ms to serialise with its ids as ropes, about 1 ms
// without. Array join copies its parts into one new sequential string.

/** Ropes and views start at this length; anything shorter is always copied flat. */
const SHORTEST_ROPE = 13;

/** The parts as one sequential string (the text of `parts.join("")`). */
export function flatText(...parts: string[]): string {
  let filled = 0;
  for (const part of parts) if (part.length > 0) filled++;
  if (filled >= 2) return parts.join("");
  // join hands a lone non-empty part back as it is, a rope or view included: copy it in two pieces
  const text = parts.join("");
  return text.length < SHORTEST_ROPE ? text : [text[0], text.slice(1)].join("");
}
