// The desk's limits (spec "Limits", support rows).
export const LIMITS = {
  /** new guest contacts from one address */
  guestsPerHour: 5,
  /** new conversations of one contact */
  threadsPerHour: 8,
  /** characters of a contact's line */
  lineLength: 4000,
  /** a contact's lines: one per this many seconds */
  lineEverySeconds: 1,
  /** the client messages list */
  clientMessages: 200,
  /** the application conversation list's page */
  conversationsPage: 25,
  /** the application contact list's page (Chatwoot's own) */
  contactsPage: 15,
  /** an agent's line (Chatwoot's message limit) */
  agentLineLength: 150000,
  /** the signed address of an attachment */
  fileAddressSeconds: 3600,
} as const;
