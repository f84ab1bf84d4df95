// Statements a transaction sends without waiting for their answers. A connection runs what it is sent in
// order, so a statement whose answer the code does not need (an insert, the commit's keeping) can go out
// with the ones after it, and with the COMMIT behind it, instead of costing a round trip of its own
// while the repository lock is held: each round trip is a send and a wake-up on both sides.
//
// If such a statement fails, every later one in the transaction fails with 25P02 (the transaction is
// aborted) and the driver's transaction reports the first failure; one that fails after the work has
// returned turns the COMMIT sent behind it into a rollback, which `settled` reports.
/** Registers a statement already sent on the transaction, whose answer nobody waits for. */
export type Later = (statement: Promise<unknown>) => void;

export interface Deferred {
  later: Later;
  /** Waits for every registered statement; throws the first one's failure (the transaction did not commit). */
  settled(): Promise<void>;
}

export function deferred(): Deferred {
  const statements: Promise<unknown>[] = [];
  return {
    later(statement) {
      statement.catch(() => {}); // answered by settled(), or by the transaction's own failure
      statements.push(statement);
    },
    async settled() {
      await Promise.all(statements);
    },
  };
}

/** Sends a statement now, answered later: for code that may run with or without a Later. */
export async function sendOrWait(later: Later | undefined, statement: Promise<unknown>): Promise<void> {
  if (later) later(statement);
  else await statement;
}
