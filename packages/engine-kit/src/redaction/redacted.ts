/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * The longest header-shaped credential text held back while it is undecided (a header value or a bearer token
 * not yet ended). Past it the credential is taken as one and what follows of it is dropped as it comes: the
 * hold stays bounded, and the safe side is to redact.
 */
export const MAX_HEADER_HELD = 256;
