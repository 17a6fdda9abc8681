"""Parked sessions (docs/engine.md, "A question with nobody to ask"): with `--yes` and
no terminal, a session whose gate asks what only a person can accept is set aside
instead of stopping the run. Its work is kept under a ref and leaves the checkout; the
sessions that do not depend on it go on; the run ends incomplete with its question
listed. A later run with a person (a terminal, or a host over the bridge) takes it up
again on top of what was committed meanwhile, and it goes on from its gate.

`models`: what the state keeps about a parked session; `questions`: which stops are
questions, and how they are said; `park`: setting a session aside; `takeup`: bringing it
back onto the checkout's HEAD; `lot`: what a plan run does with them.
"""
