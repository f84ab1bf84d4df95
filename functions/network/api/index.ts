// Every wire method the site serves, one file each, named as on the wire. A method not listed here
// answers 501 MethodNotImplemented (chat.bsky.* among them: direct messages are the spaces').
import type { Method } from "../xrpc/method.ts";
import applyWrites from "./com/atproto/repo/applyWrites.ts";
import checkAccountStatus from "./com/atproto/server/checkAccountStatus.ts";
import createAccount from "./com/atproto/server/createAccount.ts";
import createAppPassword from "./com/atproto/server/createAppPassword.ts";
import createRecord from "./com/atproto/repo/createRecord.ts";
import createSession from "./com/atproto/server/createSession.ts";
import deleteRecord from "./com/atproto/repo/deleteRecord.ts";
import deleteSession from "./com/atproto/server/deleteSession.ts";
import describeServer from "./com/atproto/server/describeServer.ts";
import getSession from "./com/atproto/server/getSession.ts";
import listAppPasswords from "./com/atproto/server/listAppPasswords.ts";
import putRecord from "./com/atproto/repo/putRecord.ts";
import refreshSession from "./com/atproto/server/refreshSession.ts";
import resolveHandle from "./com/atproto/identity/resolveHandle.ts";
import revokeAppPassword from "./com/atproto/server/revokeAppPassword.ts";
import updateHandle from "./com/atproto/identity/updateHandle.ts";
import uploadBlob from "./com/atproto/repo/uploadBlob.ts";

export const METHODS: Method[] = [
  // com.atproto.identity
  resolveHandle,
  updateHandle,
  // com.atproto.repo
  applyWrites,
  createRecord,
  deleteRecord,
  putRecord,
  uploadBlob,
  // com.atproto.server
  checkAccountStatus,
  createAccount,
  createAppPassword,
  createSession,
  deleteSession,
  describeServer,
  getSession,
  listAppPasswords,
  refreshSession,
  revokeAppPassword,
  // app.bsky.* (reads: 13b)
];

export function methodTable(): Map<string, Method> {
  const table = new Map<string, Method>();
  for (const m of METHODS) {
    if (table.has(m.nsid)) throw new Error(`${m.nsid} is listed twice`);
    table.set(m.nsid, m);
  }
  return table;
}
