"""Parallel sessions (docs/parallel.md): sessions whose dependencies are complete run side
by side, each in a git worktree of its own, and are integrated into the main branch one
at a time, in plan order, tested again there.

`models`: what the state keeps about them; `waves`: what may run together; `lanes`: a
session's worktree and its own run folder; `child`: what a session's own run does
differently; `children`: the processes that run sessions in their worktrees; `shared`,
`settle`, `ends`, `orchestrator`: the run that schedules them (its context and turns at
the shared state; integration and the blocked checkpoint; how it ends; its loop);
`asking`: a lane's question asked at this run's terminal; `integrate`: a commit onto
the main branch; `fence` and `proof`: the main state, held as this run's own, and when
it may say a session is completed; `watch`: the person's checkout where no sandbox keeps
sessions out of it; `view`: what `executor status` shows.
"""
