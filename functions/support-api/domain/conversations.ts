// Conversation states and the filters of the desk's list (spec "Support conversation" states).
export const STATUSES = ["open", "pending", "resolved"] as const;
export type Status = typeof STATUSES[number];

export function isStatus(value: unknown): value is Status {
  return typeof value === "string" && (STATUSES as readonly string[]).includes(value);
}

/**
 * The desk's toggle_status: the status asked for, or without one `resolved`, and `open` again when it was
 * resolved. (The contact's toggle_status always resolves; a later contact line reopens, in the database.)
 */
export function deskToggle(current: Status, requested: Status | undefined): Status {
  if (requested) return requested;
  return current === "resolved" ? "open" : "resolved";
}

export type StatusFilter = Status | "all";
export type AssigneeFilter = "me" | "unassigned" | "assigned" | "all";

/** The list's filters with Chatwoot's defaults (status open, assignee all, page 1); undefined when unknown. */
export function listFilters(query: { status?: string; assignee_type?: string; page?: string }):
  | { status: StatusFilter; assignee: AssigneeFilter; page: number }
  | { problem: string } {
  const status = query.status || "open";
  if (status !== "all" && !isStatus(status)) return { problem: "status must be open, pending, resolved or all." };
  const assignee = query.assignee_type || "all";
  if (!["me", "unassigned", "assigned", "all"].includes(assignee)) {
    return { problem: "assignee_type must be me, unassigned, assigned or all." };
  }
  const page = pageNumber(query.page);
  if (page === undefined) return { problem: "page must be a whole number from 1." };
  return { status: status as StatusFilter, assignee: assignee as AssigneeFilter, page };
}

/** A page number from 1 (absent: 1); undefined when it is not one. */
export function pageNumber(text: string | undefined): number | undefined {
  if (text === undefined || text === "") return 1;
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1) return undefined;
  return Number(text);
}

/** typing_status `on` / `off` (Chatwoot also sends `typing_on`/`typing_off` from older widgets). */
export function typingOn(value: unknown): boolean | undefined {
  if (value === "on" || value === "typing_on" || value === true) return true;
  if (value === "off" || value === "typing_off" || value === false) return false;
  return undefined;
}
