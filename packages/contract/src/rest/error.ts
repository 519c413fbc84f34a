/** What went wrong: a code of the server's status table, a message, and the input at fault when there is one. */
export interface ErrorDetail {
  code: string;
  message: string;
  /** The offending input, e.g. `body.prompt` or `query.cursor`. */
  field?: string;
}

/** The JSON body of every 4xx/5xx answer. */
export interface ErrorBody {
  error: ErrorDetail;
}

/** A refused resume cursor: the error and the head the client can resume from. */
export interface CursorErrorBody {
  error: ErrorDetail;
  headDeliverySeq?: number;
}
