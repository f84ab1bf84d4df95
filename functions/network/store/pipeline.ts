// Statements a transaction sends without waiting for their answers. A connection runs what it is sent in
// order, so a statement whose answer the code does not need (an insert, the commit's keeping) can go out
// with the ones after it, and with the COMMIT behind it, instead of costing a round trip of its own
// while the repository lock is held: each round trip is a send and a wake-up on both sides.
//
// If such a statement fails, every later one in the transaction fails with 25P02 (the transaction is
// aborted) and the transaction reports the first failure; one that fails after the work has returned
// turns the COMMIT sent behind it into a rollback, which is reported all the same.
import type { Sql, Tx } from "../../../shared/db.ts";

/** Registers a statement already sent on the transaction, whose answer nobody waits for. */
export type Later = (statement: Promise<unknown>) => void;

export interface Deferred {
  later: Later;
  /** Waits for every registered statement; throws the first one's failure (the transaction did not commit). */
  settled(): Promise<void>;
  /** The first failure among the registered statements that is not the aborted transaction's 25P02, if any. */
  firstFailure(): Promise<unknown>;
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
    async firstFailure() {
      for (const outcome of await Promise.allSettled(statements)) {
        if (outcome.status === "rejected" && !aborted(outcome.reason)) return outcome.reason;
      }
      return undefined;
    },
  };
}

/** Sends a statement now, answered later: for code that may run with or without a Later. */
export async function sendOrWait(later: Later | undefined, statement: Promise<unknown>): Promise<void> {
  if (later) later(statement);
  else await statement;
}

/** "current transaction is aborted": a statement sent behind one that failed. */
function aborted(error: unknown): boolean {
  return (error as { code?: string })?.code === "25P02";
}

/**
 * A transaction on a connection of its own whose BEGIN goes out with its first statement (the driver's
 * own transactions wait for BEGIN's answer first: a round trip more). `fn` sends its statements on `tx`,
 * those it does not wait for to `later`; the COMMIT follows the last of them. Fails with the first
 * failure of the transaction (not the 25P02 of the statements behind it), having rolled it back.
 */
export async function pipelinedTransaction<T>(sql: Sql, fn: (tx: Tx, later: Later) => Promise<T>): Promise<T> {
  const connection = await sql.reserve();
  const sent = deferred();
  try {
    const began = connection`begin`.execute();
    began.catch(() => {});
    let result: T;
    try {
      result = await fn(connection as unknown as Tx, sent.later);
      await began;
      await connection`commit`;
    } catch (error) {
      await connection`rollback`.catch(() => {});
      if (!aborted(error)) throw error;
      throw await began.then(() => sent.firstFailure(), (failure) => failure) ?? error;
    }
    // a statement not waited for that failed after the work returned: the COMMIT was a rollback
    const failure = await sent.firstFailure();
    if (failure) throw failure;
    return result;
  } finally {
    connection.release();
  }
}
