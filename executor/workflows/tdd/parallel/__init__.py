"""Parallel sessions (docs/parallel.md): sessions whose dependencies are complete run side
by side, each in a git worktree of its own, and are integrated into the main branch one
at a time, in plan order, tested again there.

`models` is what the state keeps about them; `waves` what may run together; `lanes` a
session's worktree and its own run folder; `children` the process that runs a session
in its worktree; `integrate` bringing its commit onto the main branch; `orchestrator` the
run that schedules them all; `child` what a session's own run does differently.
"""
