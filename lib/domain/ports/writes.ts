/** How every versioned write is sent (persons and the vocabularies alike), as the handlers ask for it. */
import type { RequestOrigin } from '../change-history';
import type { Preconditions } from '../preconditions';
import type { RequesterRuling } from '../principal';

/** How a write is sent: where the request came from, and until when it may retry. */
export interface WriteOptions {
  /** For the ChangeHistory entry. */
  origin?: RequestOrigin;
  /** What the caller must prove about the requester (API.md 9.1); open when binding is off. */
  ruling?: RequesterRuling;
  /** Epoch ms (`retryDeadline`); the default is the budget of a fresh HTTP invocation. */
  deadline?: number;
}

/** How an update of a stored object is sent: with the request's conditions too. */
export interface UpdateOptions extends WriteOptions {
  /** If-Match and If-None-Match, as sent (API.md 2.1); none when absent. */
  conditions?: Preconditions;
}
