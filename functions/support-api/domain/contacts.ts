// A contact's attributes as the client API changes them. A name, an email or a phone number a visitor
// gives is their own word: kept among the custom attributes as given, never as the contact's identity
// (the desk matches nobody by it), and an identifier makes the contact a `user` but never verified.
import { jsonProblem, jsonPathText } from "../../../shared/input-text.ts";

export const STATED_FIELDS = ["name", "email", "phone_number", "avatar_url"] as const;

export interface ContactChange {
  /** keys to set, and keys to remove (given as null) */
  set: Record<string, unknown>;
  remove: string[];
  identifier?: string;
}

const MAX_ATTRIBUTES_BYTES = 16_384;

/** The change a client PATCH (or creation) asks for, or a problem with it. */
export function contactChange(body: Record<string, unknown>): ContactChange | { problem: string } {
  const attributes = body.custom_attributes ?? {};
  if (typeof attributes !== "object" || attributes === null || Array.isArray(attributes)) {
    return { problem: "custom_attributes must be an object." };
  }
  const problem = jsonProblem(attributes, 8);
  if (problem) return { problem: `custom_attributes.${jsonPathText(problem.path)} ${problem.why}.` };
  if (JSON.stringify(attributes).length > MAX_ATTRIBUTES_BYTES) return { problem: "custom_attributes is too large." };
  const set: Record<string, unknown> = {};
  const remove: string[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    if (key.length > 255) return { problem: "A custom attribute's name is longer than 255 characters." };
    if (value === null) remove.push(key);
    else set[key] = value;
  }
  for (const field of STATED_FIELDS) {
    const value = body[field];
    if (value === undefined || value === null || value === "") continue;
    if (typeof value !== "string" || value.length > 320) return { problem: `${field} must be a short string.` };
    const stated = jsonProblem(value);
    if (stated) return { problem: `${field} ${stated.why}.` };
    set[field] = value;
  }
  let identifier: string | undefined;
  if (body.identifier !== undefined && body.identifier !== null && body.identifier !== "") {
    if (typeof body.identifier !== "string" && typeof body.identifier !== "number") {
      return { problem: "identifier must be a string or a number." };
    }
    identifier = String(body.identifier);
    if (identifier.length > 255 || jsonProblem(identifier)) return { problem: "identifier is not acceptable." };
  }
  return { set, remove, identifier };
}

/** The attributes after a change: set keys merged over the current ones, removed keys gone. */
export function mergeAttributes(current: Record<string, unknown>, change: ContactChange): Record<string, unknown> {
  const merged = { ...current, ...change.set };
  for (const key of change.remove) delete merged[key];
  return merged;
}
