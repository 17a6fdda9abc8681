"""Parallel sessions (docs/parallel.md): sessions whose dependencies are complete run side
by side, each in a git worktree of its own, and are integrated into the main branch one
at a time, in plan order, tested again there.

`orchestrator`: the run that schedules them (`Parallel`, its loop), composed of parts it
builds once: `shared` (its context and turns at the shared state), `settle` (integration
and the blocked checkpoint), `ends` (how it ends). `waves`: what may run together;
`lanes`: a session's worktree and its own run folder; `children`: the processes that run
sessions in their worktrees; `asking`: a lane's question asked at this run's terminal;
`integrate`: a commit onto the main branch; `fence` and `proof`: the main state, held as
this run's own, and when it may say a session is completed; `pinned`: what the run pins
for every lane; `watch`: the person's checkout where no sandbox keeps sessions out of it;
`view`: what `executor status` shows.
"""
