// The support desk's value lists that its OpenAPI section states: the support function validates against
// these very lists, so the document and the function cannot disagree.

/** The webhook events the desk sends. */
export const SUPPORT_SENT_EVENTS = [
  "conversation_created",
  "conversation_status_changed",
  "conversation_updated",
  "message_created",
  "contact_created",
] as const;

/** Events a subscription may name that are never sent (spec). */
export const SUPPORT_SILENT_EVENTS = ["message_updated", "contact_updated", "webwidget_triggered"] as const;

/** Every event a subscription may name. */
export const SUPPORT_EVENTS: readonly string[] = [...SUPPORT_SENT_EVENTS, ...SUPPORT_SILENT_EVENTS];
