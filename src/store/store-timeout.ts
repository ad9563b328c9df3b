/** The `code` of the error a store call rejects with when the database gave no answer in time. */
const STORE_TIMEOUT = 'store_timeout';

/**
 * The error of a store call that outlived its deadline: the database did not answer (a network
 * partition, a silent server). The call may still complete on the server.
 * @param kind the store's kind, for the message
 * @param timeoutMs the deadline that passed
 */
export function storeTimeoutError(kind: string, timeoutMs: number): Error & { readonly code: string } {
  return Object.assign(new Error(`the ${kind} store did not answer within ${timeoutMs} ms`), { code: STORE_TIMEOUT });
}

/** Whether `error` says a store call outlived its deadline (see `storeTimeoutError`). */
export function isStoreTimeout(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === STORE_TIMEOUT;
}
