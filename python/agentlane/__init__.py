"""agentlane for Python: a client of the agentlane wire and a second runtime of its contract.

Written from the language-agnostic contract, the JSON Schema bundle and the docs, not from the
TypeScript sources: agreeing with the TypeScript side byte for byte is what proves the wire is not
TypeScript-flavoured.
"""

from .canonical import canonical_json, fingerprint, fingerprint_session_state
from .vectors import compare_vectors, has_seen, increment_vector, merge_vectors

__all__ = [
    "canonical_json",
    "fingerprint",
    "fingerprint_session_state",
    "compare_vectors",
    "has_seen",
    "increment_vector",
    "merge_vectors",
]
