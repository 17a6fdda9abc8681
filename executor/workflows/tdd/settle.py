"""Before a gate asks its own question: settle what changed while the session waited.

Two things can change between the end of a work step and a person's answer: the
session's own section of the plan (drift) and files in the worktree (a person's edits;
the agent is not running then). Neither is ever committed or acted on silently: the
person chooses, through the same question machinery as any checkpoint (so a host
answers over the bridge, and `--yes` without a terminal stops with exit 16).

Drift: use the new text from now on / put the old text back / skip the session.
Edits: keep them out of the session's commit / they belong to the session / abort.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from executor.choices import Decision
from executor.engine.machine import Outcome
from executor.workflows.tdd import guards
from executor.workflows.tdd.context import SessionPart, opt
from executor.workflows.tdd.step import RECHECK_AT

if TYPE_CHECKING:
    from executor.workflows.tdd.gates import Gates


def take_snapshot(part: SessionPart) -> None:
    """Record the tree as the session's steps left it (every changed file's hash)."""
    rec = part.rec
    changed = part.r.repo.facts(ignore=part._ignore()).changed
    rec.tree = guards.snapshot(part.r.repo.root, [f for f in changed if f not in rec.excluded])


def person_edits(part: SessionPart) -> list[str]:
    """Files that differ from the snapshot of the last work step: nobody of ours did it."""
    rec = part.rec
    changed = part.r.repo.facts(ignore=part._ignore()).changed
    now = guards.snapshot(part.r.repo.root, [f for f in changed if f not in rec.excluded])
    return guards.differences(rec.tree, now)


def drifted(part: SessionPart) -> bool:
    rec = part.rec
    return bool(rec.source_hash) and rec.source_hash != part.s.source_hash


def changed_meanwhile(part: SessionPart) -> bool:
    return drifted(part) or bool(person_edits(part))


def settle(g: Gates) -> Outcome | None:
    """None when nothing is left to settle; else the outcome (ABORT or a stop)."""
    if drifted(g):
        out = _drift(g)
        if out is not None:
            return out
    edits = person_edits(g)
    return _edits(g, edits) if edits else None


def _drift(g: Gates) -> Outcome | None:
    s, rec = g.s, g.rec
    where = f"{s.source_file}:{s.line_start}"
    tracked = rec.base_commit is not None and g.r.repo.tracked_at(rec.base_commit, s.source_file)
    options = [opt("use_new", "Use the new text from now on")]
    if tracked:
        options.append(opt("keep_old", "Put the old text back (the file as the session began)"))
    options += [
        opt("skip", "Skip the session (roll back, mark it skipped)"),
        opt("pause", "Pause"),
    ]
    rec.problem = (
        f"Session {s.number}'s section of the plan ({where}) changed since the session "
        f"started; its steps so far were checked against the old text."
    )
    got = g._question("drift", rec.problem + " What now?", options, _plan_diff(g), None)
    if isinstance(got, Outcome):
        return got
    assert isinstance(got, Decision)
    if got.action == "skip":
        rec.after_rollback = "skip"
        return Outcome.ABORT
    if got.action == "keep_old":
        assert rec.base_commit is not None
        ref = g.r.repo.snapshot(f"plan-edit-session-{s.number}")
        g.r.repo.restore_paths(rec.base_commit, [s.source_file])
        g.r.reload()
        g._say(f"the plan's old text is back; your edit is saved in {ref}")
    else:
        rec.source_hash = s.source_hash
        g._say("continuing with the plan's new text")
    return None


def _plan_diff(g: Gates) -> str:
    base = g.rec.base_commit or "HEAD"
    text = g.r.repo.diff_text(base, ignore=g._ignore(), paths=[g.s.source_file])
    return text or "(the plan file differs from the session's start)"


def _edits(g: Gates, files: list[str]) -> Outcome | None:
    rec = g.rec
    theirs = [f for f in files if f not in rec.tree]
    shared = [f for f in files if f in rec.tree]
    options = []
    if theirs:
        label = "Keep them" if not shared else "Keep the ones only you changed"
        options.append(opt("keep_out", f"{label} out of this session's commit and continue"))
    options += [
        opt("include", "They belong to the session: commit them with it"),
        opt("show_diff", "Show the diff"),
        opt("abort", "Abort the session (roll back; everything is backed up first)"),
        opt("pause", "Pause"),
    ]
    rec.problem = (
        f"Files changed while session {g.s.number} waited, not by its agent: "
        f"{guards.describe(files)}. They are not committed or undone without you."
    )
    info = "\n".join(
        [f"- {f}" + (" (the agent changed it too)" if f in shared else "") for f in files]
    )
    base = rec.base_commit or "HEAD"
    paths = [g.r.repo.root / f for f in files]
    got = g._question(
        "edits",
        rec.problem + " What now?",
        options,
        info,
        None,
        shows=lambda _: g.r.repo.diff_text(base, paths=paths) or "(no changes)",
    )
    if got is Outcome.NO_HUMAN:  # --yes, no terminal: a person changed them on purpose
        g._say(f"nobody to ask (--yes): {guards.describe(files)} are part of the session")
        return _taken_in(g, files)
    if isinstance(got, Outcome):
        return got
    assert isinstance(got, Decision)
    if got.action == "abort":
        return Outcome.ABORT
    if got.action == "keep_out":
        rec.excluded = sorted({*rec.excluded, *theirs})
        g._say(
            f"kept out of the session's commit: {guards.describe(theirs)}"
            + (f" ({guards.describe(shared)}: the agent changed them too, so they stay in)"
               if shared else "")
        )  # fmt: skip
        take_snapshot(g)
        return None
    g._say(f"part of the session from now on: {guards.describe(files)}")
    return _taken_in(g, files)


def _taken_in(g: Gates, files: list[str]) -> Outcome | None:
    """The person's files are the session's now: a RED test they edited is the RED test
    from now on, and what was verified before them is verified again (RECHECK), so no
    commit holds a change its tests never ran against."""
    rec = g.rec
    for f in files:
        if f in rec.red.hashes:
            rec.red.hashes[f] = guards.file_sha(g.r.repo.root / f)
    take_snapshot(g)
    if rec.step in RECHECK_AT:
        g._say("verifying again with them")
        return Outcome.RECHECK
    return None
