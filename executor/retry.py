"""The one retry policy for agent failures (RELIABILITY P10, P11).

Used by the engine's agent steps (bridge and command alike) and by the seed API's
`AgentBridgeInvoker.request()`. An agent answer that is an error or a timeout is
retried with exponential backoff up to `max_retries` times (so `max_retries + 1`
answers in all); a failure that retrying cannot fix (the agent does not exist, the
request or the answer could not be parsed, the host cancelled) is never retried.
Unknown `error_type` strings count as UNKNOWN, which is retryable.

A response that never arrives is bounded separately: the same request is emitted at
most `max_emissions` times, then the run stops instead of asking forever.
"""

from __future__ import annotations

from dataclasses import dataclass

NOT_RETRYABLE_TYPES = frozenset({"PARSE_ERROR", "VALIDATION_ERROR", "AGENT_NOT_FOUND"})
RETRYABLE_STATUSES = frozenset({"error", "timeout"})


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 2
    #: Seconds before the first retry; doubled for each further one, capped.
    base_delay: float = 0.5
    max_delay: float = 8.0
    #: How many times one request may be emitted without an answer.
    max_emissions: int = 5

    @staticmethod
    def retryable(status: str, error_type: str | None) -> bool:
        """Whether retrying could help this failure at all."""
        return status in RETRYABLE_STATUSES and error_type not in NOT_RETRYABLE_TYPES

    def should_retry(self, status: str, error_type: str | None, failures: int) -> bool:
        """After the `failures`-th failed answer in a row: ask again?"""
        return self.retryable(status, error_type) and failures <= self.max_retries

    def delay(self, failures: int) -> float:
        """Seconds to wait before asking again after the `failures`-th failure."""
        return min(self.max_delay, self.base_delay * 2.0 ** max(0, failures - 1))
