// The scheduling API's value lists that its OpenAPI section states: the scheduling function validates
// against these very lists, so the document and the function cannot disagree, and the scheduling section
// needs no code of the function.

/** Webhook triggers a subscription may name. */
export const TRIGGERS = [
  "BOOKING_CREATED",
  "BOOKING_RESCHEDULED",
  "BOOKING_CANCELLED",
  "BOOKING_REJECTED",
  "MEETING_STARTED",
  "MEETING_ENDED",
  "BOOKING_NO_SHOW_UPDATED",
  "RECORDING_READY",
] as const;
