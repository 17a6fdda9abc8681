"""What a reviewer reads of a run's history, and the one push the executor makes.

`shown` reads many commits in one `git show` (message, trailers, stat and patch), so a
report of 200 sessions costs one git call, not 200; `tree_patch` is the diff between two
trees an agent's attempts left. No textconv or external diff program runs.

`push_commit` is the only write to another repository: a commit to a branch of a
remote, never forced (a branch that holds other work is refused by git and said so),
with no hook (`core.hooksPath` points nowhere, as for every git call here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from executor import errors
from executor.vcs.plumbing import _trailers_of
from executor.vcs.reads import GitReads

_DIFF = ("--no-color", "--no-ext-diff", "--no-textconv")


@dataclass(frozen=True)
class Shown:
    """One commit as `git show` prints it."""

    sha: str
    message: str
    trailers: dict[str, str]  # keys as written
    stat: str
    patch: str
    #: characters of the patch left out (over `max_chars`)
    cut: int = 0


class GitShown(GitReads):
    def shown(self, shas: Sequence[str], *, max_chars: int = 60_000) -> dict[str, Shown]:
        """The commits of `shas` that exist here, by full id (each patch cut at
        `max_chars`); one git call."""
        known = self.commits_among([s for s in dict.fromkeys(shas) if s])
        if not known:
            return {}
        proc = self._run(
            "show",
            *_DIFF,
            "--patch-with-stat",
            "--stat=100",
            "--format=%x1e%H%x1f%B%x1f",
            *known,
            "--",
            check=False,
        )
        found: dict[str, Shown] = {}
        for record in proc.stdout.split("\x1e")[1:]:
            sha, _, rest = record.partition("\x1f")
            message, _, body = rest.partition("\x1f")
            stat, _, patch = body.lstrip("\n").partition("\ndiff --git ")
            patch = "diff --git " + patch if patch else ""
            cut = max(0, len(patch) - max_chars)
            found[sha] = Shown(
                sha=sha,
                message=message.strip(),
                trailers=trailers_as_written(message),
                stat=stat.strip("\n").removeprefix("---\n"),
                patch=patch[:max_chars],
                cut=cut,
            )
        return found

    def commits_among(self, names: Sequence[str]) -> list[str]:
        """Those of `names` that name a commit here, in order; one git call."""
        if not names:
            return []
        proc = self._run(
            "cat-file",
            "--batch-check=%(objecttype)",
            check=False,
            input_text="".join(f"{n}\n" for n in names),
        )
        kinds = proc.stdout.splitlines()
        return [n for n, kind in zip(names, kinds, strict=False) if kind == "commit"]

    def tree_patch(self, a: str, b: str, *, max_chars: int = 60_000) -> str | None:
        """The diff from tree (or commit) `a` to `b`; None when either is gone (an
        attempt's tree is kept by git only while something refers to it, or until gc)."""
        proc = self._run("diff", *_DIFF, "--stat=100", "--patch", a, b, "--", check=False)
        if proc.returncode != 0:
            return None
        text = proc.stdout
        if len(text) > max_chars:
            text = text[:max_chars] + f"\n... [{len(text) - max_chars} more characters]\n"
        return text

    def remotes(self) -> list[str]:
        return self._out("remote").split()

    def push_commit(self, remote: str, commit: str, branch: str) -> str:
        """Push `commit` to `branch` of `remote` (never forced); git's own words when it
        refuses (the branch holds other commits, the remote cannot be reached)."""
        sha = self._require_commit(commit)
        proc = self._run("push", "--porcelain", remote, f"{sha}:refs/heads/{branch}", check=False)
        if proc.returncode != 0:
            said = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
            raise errors.GitCommandError(
                ["push", remote, branch], proc.returncode, "\n".join(said[-3:])
            )
        return proc.stdout


def trailers_as_written(message: str) -> dict[str, str]:
    """The trailers of a commit message, keys as the message writes them."""
    lower = _trailers_of(message)
    if not lower:
        return {}
    found: dict[str, str] = {}
    for line in message.strip().splitlines()[::-1]:
        key, sep, value = line.partition(":")
        if sep and key.lower() in lower and key not in found:
            found[key] = value.strip()
        if len(found) == len(lower):
            break
    return dict(reversed(list(found.items())))
