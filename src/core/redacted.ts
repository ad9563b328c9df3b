/** What actorkit writes in place of a secret it keeps out of a log line, a reply or a message to the model. */
export const REDACTED = '[redacted]';
