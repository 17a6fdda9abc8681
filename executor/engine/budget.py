"""Budgets for agent work: money, tokens and agent wall time, checked before each call.

What was spent is summed from the agent calls the state records (as the agents' CLIs,
or a host in its response's metadata, reported them). A run stops BEFORE a call once a
budget is spent, with exit 23 and the state resumable; the same command with a larger
budget continues where it stopped.
"""

from __future__ import annotations

from executor.engine.state import RunOptions, RunState
from executor.records import Record


class Spent(Record, kw_only=False, frozen=True):
    usd: float
    tokens: int
    seconds: float
    calls: int
    #: calls that reported no cost (a plain command, a host that sends no metadata)
    unpriced: int


def spent(state: RunState) -> Spent:
    calls = [c for rec in state.sessions.values() for c in rec.agent_calls]
    return Spent(
        usd=round(sum(c.cost_usd or 0.0 for c in calls), 6),
        tokens=sum((c.input_tokens or 0) + (c.output_tokens or 0) for c in calls),
        seconds=round(sum(c.seconds for c in calls), 3),
        calls=len(calls),
        unpriced=sum(1 for c in calls if c.cost_usd is None),
    )


def exceeded(options: RunOptions, used: Spent) -> str | None:
    """Which budget is spent ("" when none): the message says what and how much."""
    if options.budget_usd is not None and used.usd >= options.budget_usd:
        return f"${used.usd:.2f} of the ${options.budget_usd:.2f} budget (--budget-usd)"
    if options.budget_tokens is not None and used.tokens >= options.budget_tokens:
        return f"{used.tokens:,} of the {options.budget_tokens:,} token budget (--budget-tokens)"
    if options.budget_minutes is not None and used.seconds >= options.budget_minutes * 60:
        return (
            f"{used.seconds / 60:.1f} of the {options.budget_minutes:g} minute budget of agent "
            f"time (--budget-minutes)"
        )
    return None
