import { ActorError } from '../../core/actor-error.js';

/** Why a peer read failed: the stable `code` of a `PeerRequestError`. */
export type PeerFailure =
  | 'peer_timeout'
  | 'peer_unavailable'
  | 'peer_rejected'
  | 'peer_error'
  | 'peer_invalid_response';

/**
 * A failed read of a sibling actor. It is an `ActorError` (504 for a time-out, 502 otherwise, as
 * `problemCatalogue` says),
 * so a route that lets it through answers a clear problem instead of a 500.
 */
export class PeerRequestError extends ActorError {
  declare readonly code: PeerFailure;
  /** The URL that was read (never carries the key). */
  readonly url: string;
  /** The peer's HTTP status, when it answered. */
  readonly peerStatus: number | undefined;
  /** The peer's problem `code`, when it sent one. */
  readonly peerCode: string | undefined;

  constructor(
    code: PeerFailure,
    url: string,
    detail: string,
    options: { peerStatus?: number; peerCode?: string; cause?: unknown } = {},
  ) {
    super(code, { detail, cause: options.cause });
    this.name = 'PeerRequestError';
    this.url = url;
    this.peerStatus = options.peerStatus;
    this.peerCode = options.peerCode;
  }
}
