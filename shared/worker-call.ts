// One request to a module worker and its one answer, the worker ended after it. The worker answers with
// an outcome that says whether it succeeded; a worker that throws uncaught answers for it here, with its
// message, so a caller never waits on a worker that died.
export type WorkerOutcome<T> = ({ ok: true } & T) | { ok: false; error: string };

export async function callWorker<T>(module: URL, message: unknown): Promise<WorkerOutcome<T>> {
  const worker = new Worker(module, { type: "module" });
  try {
    return await new Promise<WorkerOutcome<T>>((resolve) => {
      worker.onmessage = (e: MessageEvent<WorkerOutcome<T>>) => resolve(e.data);
      worker.onerror = (e) => {
        e.preventDefault();
        resolve({ ok: false, error: e.message });
      };
      worker.postMessage(message);
    });
  } finally {
    worker.terminate();
  }
}
