// App passwords: the member's own, made with the site's session (the account page) or an app's session.
// A password is shown once, when it is made; only its hash is kept.
import type { Db } from "../../shared/db.ts";
import { generateAppPassword, hashAppPassword } from "./sessions.ts";
import { deleteAppPassword, insertAppPassword } from "./store/sessions.ts";
import { forbidden, invalidRequest } from "./xrpc/errors.ts";
import type { Viewer } from "./xrpc/method.ts";

export async function createAppPassword(
  db: Db,
  viewer: Viewer,
  input: { name: string; privileged: boolean; now: Date },
) {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 64 || [...name].some((ch) => ch.charCodeAt(0) < 32 || ch === "\u007f")) {
    throw invalidRequest("An app password's name is 1 to 64 characters.");
  }
  // as the vendor's server: a session made with an app password cannot mint more of them
  if (viewer.via === "app") throw forbidden("App passwords are made on the site's account page, not from an app.");
  const password = generateAppPassword();
  const row = await insertAppPassword(db, {
    personId: viewer.id,
    name,
    hash: await hashAppPassword(password),
    privileged: input.privileged,
    now: input.now,
  });
  if (!row) throw invalidRequest(`You already have an app password named ${name}.`);
  return { name: row.name, password, createdAt: row.created_at, privileged: row.privileged };
}

/** Revoking a name that is not there is no error (as the vendor's server answers). */
export async function revokeAppPassword(db: Db, viewer: Viewer, name: string): Promise<boolean> {
  return await deleteAppPassword(db, viewer.id, name.trim());
}
