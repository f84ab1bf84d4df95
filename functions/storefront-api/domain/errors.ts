// Faults in a query the caller can fix (a bad cursor, `first` out of range): they become GraphQL errors
// with their message and code in an HTTP 200 answer. Any other error is masked as an internal one.
export class StoreInputError extends Error {
  constructor(message: string, readonly code = "BAD_USER_INPUT") {
    super(message);
  }
}
