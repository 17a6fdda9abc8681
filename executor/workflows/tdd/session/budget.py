"""Budgets for agent work: money, tokens and agent wall time, checked before each call.

What was spent is the run's total (`run.spent` in the state), added to at each agent
call as the agents' CLIs, or a host in its response's metadata, reported it. A run
stops BEFORE a call once a budget is spent, with exit 23 and the state resumable; the
same command with a larger budget continues where it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass

from executor.runoptions import RunOptions
from executor.workflows.tdd.record.state import Spent


@dataclass(frozen=True)
class Exceeded:
    """A spent budget: its flag, what was spent of what, and a larger value to resume."""

    flag: str
    text: str
    larger: str


def exceeded(options: RunOptions, used: Spent) -> Exceeded | None:
    """The budget that is spent, if one is (the money first, then tokens, then time)."""
    if options.budget_usd is not None and used.usd >= options.budget_usd:
        more = max(options.budget_usd * 2, used.usd + 0.01)
        return Exceeded(
            "--budget-usd",
            f"${used.usd:.2f} of the ${options.budget_usd:.2f} budget (--budget-usd)",
            f"{more:.2f}",
        )
    if options.budget_tokens is not None and used.tokens >= options.budget_tokens:
        return Exceeded(
            "--budget-tokens",
            f"{used.tokens:,} of the {options.budget_tokens:,} token budget (--budget-tokens)",
            str(max(options.budget_tokens * 2, used.tokens + 1)),
        )
    if options.budget_minutes is not None and used.seconds >= options.budget_minutes * 60:
        return Exceeded(
            "--budget-minutes",
            f"{used.seconds / 60:.1f} of the {options.budget_minutes:g} minute budget of agent "
            f"time (--budget-minutes)",
            f"{max(options.budget_minutes * 2, used.seconds / 60 + 1):g}",
        )
    return None
