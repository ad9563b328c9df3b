/**
 * Runs async tasks one at a time, in call order. SQLite has one writer and libSQL executes
 * statements synchronously, so two interleaved transactions on one process would wait on
 * each other's lock while blocking the event loop; queueing them avoids that.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` once every task queued before it has settled; resolves or rejects as it does. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
