// com.atproto.server.listAppPasswords: the member's own (names and dates; never a password).
import { listAppPasswords } from "../../../../store/sessions.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("com.atproto.server.listAppPasswords", { auth: "reader", apps: false }, async (call) => {
  const rows = await listAppPasswords(call.ctx.sql, call.viewer!.id);
  return {
    passwords: rows.map((r) => ({ name: r.name, createdAt: r.created_at.toISOString(), privileged: r.privileged })),
  };
});
