"""A session's work as a git tree object: recorded, compared, restored and committed.

The worktree is a place that the agent, the tests and the person can all still change;
a tree id is not. So the work is recorded through a private index with no filters,
refusing what a clone would not get back, and `commit_tree` commits exactly that tree
with no hook, signing program or fsmonitor (docs/reliability.md, "The commit is the
tested content"). What tools write while tests run is never part of the work when git
does not track it (`VOLATILE_*`).
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from executor import errors, fsutil
from executor.vcs.attributes import GitAttributes
from executor.vcs.plumbing import _git_subprocess, _under
from executor.vcs.reads import is_object_id

#: Untracked folders and files test runs and tools write: never a session's work.
VOLATILE_DIRS = frozenset(
    {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".tox",
     ".nox", "htmlcov", ".cache", ".eggs", "node_modules"}
)  # fmt: skip
VOLATILE_SUFFIXES = (".pyc", ".pyo")
VOLATILE_NAMES = frozenset({".coverage", "coverage.xml", ".DS_Store"})
#: A file changed this recently may change again within the same timestamp tick: its
#: content is hashed again rather than trusted to its stat (git's "racy" entries). Two
#: seconds where the file system's stamps are whole milliseconds or coarser (FAT's are 2
#: s); where they carry finer parts the tick is the kernel's clock tick (at most 10 ms):
#: 100 ms is ten of them. A session writes and records within seconds: with 2 s for every
#: file, each of its files was hashed again at nearly every record.
_RACY_NS = 2_000_000_000
_RACY_FINE_NS = 100_000_000
#: A tree entry's mode for a submodule (a commit of another repository).
GITLINK = "160000"
#: Flags a person's index may carry on a path (`git ls-files -v` letters).
_FLAGS = {"h": "--assume-unchanged", "S": "--skip-worktree", "s": "--skip-worktree"}
#: No program a repository's config names runs in our git writes.
NO_PROGRAMS = (
    "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", "-c", "core.fsmonitor=false",
    "-c", f"core.hooksPath={os.devnull}",
)  # fmt: skip


def volatile(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return (
        any(p in VOLATILE_DIRS or p.endswith(".egg-info") for p in parts[:-1])
        or name.endswith(VOLATILE_SUFFIXES)
        or name in VOLATILE_NAMES
        or name.startswith(".coverage.")
    )


@dataclass
class Recorded:
    """A recorded tree, and what could not be recorded (each a line for a person)."""

    tree: str
    problems: list[str] = field(default_factory=list)


class GitTrees(GitAttributes):
    def __init__(self, root: Path) -> None:
        super().__init__(root)
        #: path -> (inode, size, mtime, ctime) and the blob hashed then (`_blobs`)
        self._hashed: dict[str, tuple[tuple[int, ...], str]] = {}
        #: the index entries last written, the tree and what its attributes change
        self._last_tree: tuple[str, str, list[str]] | None = None
        #: commit id -> its tree (`tree_of`)
        self._trees: dict[str, str] = {}
        #: (tree id, tree id) -> the paths that differ (`tree_diff`)
        self._diffs: dict[tuple[str, str], list[str]] = {}
        #: the last commit listed, and the files it holds (`_held_by`)
        self._listing: tuple[str, dict[str, str]] | None = None
        #: a CRLF file's blob -> the blob of its content with LF line ends (`_line_ends`)
        self._lf: dict[str, str] = {}

    # -- recording --------------------------------------------------------------------------
    def record_tree(self, *, exclude: Sequence[Path] = ()) -> Recorded:
        """The worktree's content (tracked and untracked, not ignored, not volatile) as a
        tree object written to the repository's object store. An `exclude`d path keeps
        what HEAD holds (a person's file kept out of the session: not its changes)."""
        skip = self._rels(exclude)
        self.cleared += [
            f"{rel}: a {kind} where git reads its rules (every git command would wait on it "
            f"for ever); it was removed"
            for rel, kind in _clear_rule_files(self.root)
        ]
        tracked = self._held_by(self.resolve("HEAD"))
        with self._private_index(None) as env:  # empty: every file git does not ignore
            listed = [*tracked, *self._out(
                "ls-files", "-z", "--others", "--exclude-standard", "--full-name", ":/", env=env,
            ).split("\0")]  # fmt: skip
        problems: list[str] = []
        files: list[str] = []
        links: dict[str, bytes] = {}
        modes: dict[str, str] = {}
        kept = [tracked[p] for p in tracked if _under(p, skip)]
        top = self.root.resolve()
        for rel in sorted({p for p in listed if p}):
            if _under(rel.rstrip("/"), skip) or (rel not in tracked and volatile(rel)):
                continue
            if tracked.get(rel, "").startswith(f"{GITLINK} "):
                kept += self._gitlink(rel, tracked[rel], problems)
                continue
            if rel.endswith("/") and rel[:-1] in tracked:
                continue  # a repository HEAD holds as a submodule: its entry says it
            if not _utf8(rel) or "\n" in rel:
                problems.append(f"{os.fsencode(rel)!r}: a file name git cannot record as text")
                continue
            if rel.endswith("/"):
                problems.append(
                    f"{rel}: a git repository inside the repository (its own .git); a "
                    f"commit would hold only a link to it and a clone an empty folder. "
                    f"Remove {rel}.git (or add it as a submodule yourself)"
                )
                continue
            path = self.root / rel
            try:
                info = path.lstat()
            except FileNotFoundError:
                continue  # deleted
            if stat.S_ISLNK(info.st_mode):
                target = os.readlink(path)
                if os.path.isabs(target) or not path.resolve().is_relative_to(top):
                    problems.append(
                        f"{rel}: a link to {target}, outside the repository (the tests read "
                        f"what it points to; a clone gets a broken link)"
                    )
                    continue
                links[rel] = os.fsencode(target)
            elif stat.S_ISREG(info.st_mode):
                files.append(rel)
                modes[rel] = "100755" if info.st_mode & 0o111 else "100644"
            elif stat.S_ISDIR(info.st_mode) and (path / ".git").exists():
                problems.append(f"{rel}/: a git repository inside the repository")
        held = (
            _with_folders({*files, *links, *(k.split("\t", 1)[1] for k in kept)})
            if links
            else set()
        )
        for rel in [r for r in links if not _holds(held, self.root / r, top)]:
            problems.append(
                f"{rel}: a link to {os.fsdecode(links.pop(rel))}, which the commit would not "
                f"hold (git ignores it, or it is kept out): the tests read it, a clone "
                f"gets a broken link"
            )
        blobs = self._line_ends(self._blobs(files, modes), tracked)
        entries = (
            kept + blobs + [f"120000 {self._hash(data)}\t{rel}" for rel, data in links.items()]
        )
        # git's config decides which attributes run programs (`checkout_changes`)
        listing = "".join(e + "\0" for e in entries) + self._config_stamp()
        if self._last_tree is not None and self._last_tree[0] == listing:
            # the same entries: the same tree, and what its attributes change the same
            return Recorded(self._last_tree[1], problems + self._last_tree[2])
        with self._private_index(None) as env:
            if entries:
                self._run("update-index", "--add", "-z", "--index-info", env=env,
                          input_text="".join(e + "\0" for e in entries))  # fmt: skip
            tree = self._out("write-tree", env=env).strip()
            changed = [e.split("\t", 1)[1] for e in blobs if tracked.get(e.split("\t", 1)[1]) != e]
            attributed = [
                f"{rel}: {why}; a clone would not get the bytes its tests ran against "
                f"(drop the attribute for it, or write the file as a checkout would)"
                for rel, why in self.checkout_changes(env, _attributed(files, changed)).items()
            ]
        self._last_tree = (listing, tree, attributed)
        return Recorded(tree, problems + attributed)

    def _held_by(self, commit: str | None) -> dict[str, str]:
        """path -> its index entry, for every file `commit` holds (none: an unborn
        branch). Listed once per commit: a session records its tree dozens of times on
        the same HEAD, and listing it is the cost that grows with the repository."""
        if commit is None:
            return {}
        if self._listing is None or self._listing[0] != commit:
            held = {}
            for entry in self._out("ls-tree", "-r", "-z", "--full-tree", commit).split("\0"):
                if entry:
                    meta, rel = entry.split("\t", 1)
                    mode, _, sha = meta.split()
                    held[rel] = f"{mode} {sha}\t{rel}"
            self._listing = (commit, held)  # the last HEAD only: it is what is asked again
        return dict(self._listing[1])

    def _line_ends(self, blobs: list[str], tracked: dict[str, str]) -> list[str]:
        """Blobs as `git add` stores them where git's own line-end conversion applies
        (`text`, `eol`, `core.autocrlf`: CRLF in the worktree, LF in the repository; no
        program runs for it): a file an `eol=crlf` checkout wrote is not a change, and a
        changed one is stored as a clone's checkout gives it back."""
        suspects = {}
        for entry in blobs:
            rel = entry.split("\t", 1)[1]
            if tracked.get(rel) == entry:
                continue
            data = fsutil.read_regular(self.root / rel)
            if data and b"\r\n" in data and b"\0" not in data[:8000]:
                suspects[rel] = data
        if not suspects:
            return blobs
        converted = self._converted(list(suspects))
        out = []
        for entry in blobs:
            meta, rel = entry.split("\t", 1)
            mode, raw = meta.split()
            if rel in converted:
                if raw not in self._lf:
                    self._lf[raw] = self._hash(suspects[rel].replace(b"\r\n", b"\n"))
                entry = f"{mode} {self._lf[raw]}\t{rel}"
            out.append(entry)
        return out

    def _converted(self, rels: list[str]) -> set[str]:
        """Those of `rels` (text files with CRLF) that `git add` would store with LF."""
        out = self._out("check-attr", "-z", "--stdin", "text", "eol",
                        input_text="".join(r + "\0" for r in rels)).split("\0")  # fmt: skip
        attrs: dict[str, dict[str, str]] = {}
        for i in range(0, len(out) - 2, 3):
            attrs.setdefault(out[i], {})[out[i + 1]] = out[i + 2]
        autocrlf = self._run("config", "--get", "core.autocrlf", check=False).stdout.strip()
        found = set()
        for rel in rels:
            text, eol = attrs.get(rel, {}).get("text", ""), attrs.get(rel, {}).get("eol", "")
            if text == "unset":
                continue
            if text in ("set", "auto") or eol in ("crlf", "lf") or autocrlf in ("true", "input"):
                found.add(rel)
        return found

    def _config_stamp(self) -> str:
        """When and how big git's config files are (a linked worktree's and the main
        repository's): a change to them is a change to what recording a tree finds."""
        stamps = []
        for folder in {self.git_dir, self.git_dir.parent.parent}:
            try:
                info = (folder / "config").stat()
            except OSError:
                continue
            stamps.append(f"{info.st_mtime_ns}:{info.st_size}:{info.st_ino}")
        return "|".join(sorted(stamps))

    def _gitlink(self, rel: str, held: str, problems: list[str]) -> list[str]:
        """A submodule HEAD holds at `rel`: its entry, as `git add` would record it (the
        commit checked out there; HEAD's own when it is not checked out here: a new
        worktree's submodules are empty folders). Files changed inside it are its own
        repository's business: the session is told to commit them there first."""
        path = self.root / rel
        if not path.is_dir():
            return []  # removed
        if not (path / ".git").exists():
            return [held]  # not checked out here
        head = _git_subprocess(["rev-parse", "--verify", "-q", "HEAD"], cwd=path)
        status = _git_subprocess(["status", "--porcelain", "-uall"], cwd=path)
        sha = head.stdout.strip()
        if head.returncode != 0 or status.returncode != 0 or not sha:
            problems.append(f"{rel}: a submodule git cannot read ({status.stderr.strip()})")
            return [held]
        changed = [
            line[3:] for line in status.stdout.splitlines()
            if len(line) > 3 and not (line.startswith("??") and volatile(line[3:]))
        ]  # fmt: skip
        if changed:
            problems.append(
                f"{rel}: files changed inside the submodule ({', '.join(changed[:5])}): a "
                f"commit here records only which commit of it is used. Commit them in the "
                f"submodule first (git -C {rel} commit), or put them back"
            )
            return [held]
        return [f"{GITLINK} {sha}\t{rel}"]

    def _blobs(self, files: list[str], modes: dict[str, str]) -> list[str]:
        """Each file's blob, written to the object store. A file hashed before by this
        process whose inode, size, mtime and ctime are unchanged (any write moves ctime,
        which no program sets back) keeps its blob, unless its mtime was too recent to
        tell a change in the same tick apart (git's "racy" rule)."""
        if not files:
            return []
        known = self._hashed
        shas: dict[str, str] = {}
        fresh: list[str] = []
        signatures: dict[str, tuple[int, ...]] = {}
        now = time.time_ns()
        for f in files:
            try:
                info = (self.root / f).lstat()
            except OSError:
                fresh.append(f)
                continue
            sig = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
            hit = known.get(f)
            if hit is not None and hit[0] == sig:
                shas[f] = hit[1]
                continue
            fresh.append(f)
            coarse = info.st_mtime_ns % 1_000_000 == 0 or info.st_ctime_ns % 1_000_000 == 0
            if max(info.st_mtime_ns, info.st_ctime_ns) < now - (
                _RACY_NS if coarse else _RACY_FINE_NS
            ):
                signatures[f] = sig
        if fresh:
            out = self._out("hash-object", "-w", "--no-filters", "--stdin-paths",
                            input_text="".join(f + "\n" for f in fresh)).split()  # fmt: skip
            for f, sha in zip(fresh, out, strict=True):
                shas[f] = sha
                if f in signatures:
                    known[f] = (signatures[f], sha)
        return [f"{modes[f]} {shas[f]}\t{f}" for f in files]

    def _hash(self, data: bytes) -> str:
        return self._out(
            "hash-object", "-w", "--no-filters", "--stdin",
            input_text=data.decode("utf-8", "surrogateescape"),
        ).strip()  # fmt: skip

    @contextlib.contextmanager
    def _private_index(self, seed: str | None) -> Iterator[dict[str, str]]:
        """Env for an index of our own (seeded from the commit `seed`, or empty)."""
        path = self.git_dir / f"executor-{os.getpid()}-{id(self)}.index"
        env = {"GIT_INDEX_FILE": str(path)}
        try:
            if seed is not None:
                self._run("read-tree", seed, env=env)
            yield env
        finally:
            for leftover in (path, path.with_name(path.name + ".lock")):
                with contextlib.suppress(FileNotFoundError):
                    leftover.unlink()

    # -- comparing and restoring -------------------------------------------------------------
    def changed_since(self, base: str, ignore: Sequence[Path] = ()) -> list[str]:
        """Files that differ between commit `base` and the worktree, incl. untracked."""
        return self.tree_diff(self.tree_of(base), self.record_tree(exclude=ignore).tree)

    def diff_text(
        self,
        base: str,
        ignore: Sequence[Path] = (),
        max_chars: int = 20000,
        paths: Sequence[Path] = (),
        stat: bool = False,
        tree: str | None = None,
    ) -> str:
        """Unified diff from commit `base` to the worktree as recorded (or to `tree`), new
        files included (only `paths` when given; `stat`: git's per-file summary). No
        textconv or external diff program runs."""
        base = self._require_commit(base)
        tree = tree or self.record_tree(exclude=ignore).tree
        how = ["--stat=100"] if stat else []
        specs = [f":(top,literal){r}" for r in self._rels(paths)]
        text = self._out("diff", "--no-color", "--no-ext-diff", "--no-textconv", *how,
                         base, tree, "--", *specs)  # fmt: skip
        if len(text) > max_chars:
            rest = len(text) - max_chars
            text = text[:max_chars] + f"\n... [diff truncated: {rest} more characters]\n"
        return text

    def tree_of(self, commit: str) -> str:
        """The tree of a commit (StaleWorkspaceError when there is no such commit). A
        commit named by its full id always has the same tree: asked of git once."""
        known = self._trees.get(commit)
        if known is None:
            known = self._out("rev-parse", f"{self._require_commit(commit)}^{{tree}}").strip()
            if is_object_id(commit):
                self._trees[commit] = known
        return known

    def tree_diff(self, a: str, b: str) -> list[str]:
        """Paths whose content or mode differs between two trees. Two object ids are
        compared once (a session compares the same few trees again at each step)."""
        if a == b:
            return []
        key = (a, b)
        ids = is_object_id(a) and is_object_id(b)
        if ids and key in self._diffs:
            return list(self._diffs[key])
        out = self._out("diff-tree", "-r", "-z", "--no-renames", "--name-only", a, b)
        found = sorted(p for p in out.split("\0") if p)
        if ids:
            if len(self._diffs) >= 256:
                self._diffs.clear()
            self._diffs[key] = found
        return list(found)

    def graft(self, base: str, source: str, paths: Sequence[str]) -> str:
        """A tree: `base` with `paths` as the tree `source` holds them (absent there:
        absent)."""
        listed = self._out("ls-tree", "-r", "-z", source, "--", *paths).split("\0")
        held = {line.split("\t", 1)[1]: line.split("\t", 1)[0] for line in listed if line}
        entries = [
            f"{held[p].split()[0]} {held[p].split()[2]}\t{p}" if p in held
            else f"0 {'0' * len(base)}\t{p}"
            for p in paths
        ]  # fmt: skip
        with self._private_index(base) as env:
            self._run("update-index", "--index-info", env=env, input_text="\n".join(entries) + "\n")
            return self._out("write-tree", env=env).strip()

    def put_back(self, tree: str, paths: Sequence[str]) -> None:
        """Make `paths` in the worktree exactly what `tree` holds (removed when it holds
        none), from the object store, byte for byte (no filters)."""
        listing = self._out("ls-tree", "-z", tree, "--", *paths) if paths else ""
        held = {}
        for entry in listing.split("\0"):
            if entry:
                meta, rel = entry.split("\t", 1)
                mode, _, sha = meta.split()
                held[rel] = (mode, sha)
        for rel in paths:
            path = self.root / rel
            if rel not in held:
                with contextlib.suppress(FileNotFoundError, IsADirectoryError):
                    path.unlink()
                continue
            mode, sha = held[rel]
            if mode == GITLINK:
                continue  # a submodule's files are its own repository's
            data = self._blob(sha)
            if path.is_symlink() or path.exists():
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            path.parent.mkdir(parents=True, exist_ok=True)
            if mode == "120000":
                os.symlink(os.fsdecode(data), path)
            else:
                fsutil.atomic_write_bytes(path, data, fault="vcs.put_back")
                os.chmod(path, 0o755 if mode == "100755" else 0o644)

    def blob(self, sha: str) -> bytes:
        """The content of a stored blob."""
        return self._blob(sha)

    def _blob(self, sha: str) -> bytes:
        import subprocess

        done = subprocess.run(
            ["git", "cat-file", "blob", sha], cwd=self.root, capture_output=True, check=False
        )
        if done.returncode != 0:
            raise errors.GitCommandError(["cat-file", "blob", sha], done.returncode,
                                         done.stderr.decode("utf-8", "replace"))  # fmt: skip
        return done.stdout

    # -- committing ----------------------------------------------------------------------------
    def index_flags(self) -> dict[str, str]:
        """The person's index flags (assume-unchanged, skip-worktree), by path."""
        out = self._out("ls-files", "-v", "-z", "--full-name", ":/")
        flags = {}
        for entry in out.split("\0"):
            if len(entry) > 2 and entry[0] in _FLAGS:
                flags[entry[2:]] = _FLAGS[entry[0]]
        return flags

    def commit_tree(
        self, tree: str, message: str, *, parent: str, flags: dict[str, str] | None = None
    ) -> str:
        """Commit exactly `tree` on the current branch (HEAD must still be `parent`), then
        make the index hold it; `flags`: the person's index flags to keep on the paths
        the commit did not change. No hook, no signing program, no fsmonitor runs."""
        self.ensure_not_busy()
        sha = self._out(*NO_PROGRAMS, "commit-tree", "--no-gpg-sign", tree, "-p", parent,
                        "-F", "-", input_text=message).strip()  # fmt: skip
        self._run(*NO_PROGRAMS, "update-ref", "-m", message.splitlines()[0], "HEAD", sha, parent)
        self.reindex(sha, flags=flags or {}, changed=set(self.tree_diff(parent, sha)))
        return sha

    def reindex(self, commit: str, *, flags: dict[str, str], changed: set[str]) -> None:
        """The person's index holds `commit` (as after their own commit or reset), with
        their flags kept on the paths not `changed`."""
        self._run(*NO_PROGRAMS, "read-tree", commit)
        for path, flag in flags.items():
            if path not in changed:
                self._run("update-index", flag, "--", path, check=False)

    def paths_in(self, tree: str) -> list[str]:
        """Every file a tree holds."""
        return [p for p in self._out("ls-tree", "-r", "-z", "--name-only", tree).split("\0") if p]

    def blobs_of(self, paths: Sequence[str]) -> dict[str, str]:
        """Each file's content stored as a blob (its id; "-" for a missing file): a
        person's file kept out of the session can be put back exactly."""
        present = [p for p in paths if (self.root / p).is_file()]
        stored = dict(zip(present, self._out(
            "hash-object", "-w", "--no-filters", "--stdin-paths",
            input_text="".join(p + "\n" for p in present),
        ).split(), strict=True)) if present else {}  # fmt: skip
        return {p: stored.get(p, "-") for p in paths}

    def blob_at(self, commit: str, path: str) -> str | None:
        """The blob id of `path` in `commit`, None when the commit has no such file."""
        proc = self._run("rev-parse", "--verify", "--quiet", f"{commit}:{path}", check=False)
        return proc.stdout.strip() or None if proc.returncode == 0 else None

    def blob_bytes(self, blob: str) -> bytes:
        """A stored blob's content."""
        return self._blob(blob)

    @contextlib.contextmanager
    def index_holding(self, tree: str) -> Iterator[dict[str, str]]:
        """Env for a private index holding `tree` (never the person's): what a commit of
        it would have staged, for a program that reads the index (a pre-commit hook)."""
        with self._private_index(tree) as env:
            yield env

    def hooks_folder(self) -> Path:
        """Where git looks for this repository's hooks (`core.hooksPath` or `.git/hooks`).

        Every git command of ours points `core.hooksPath` nowhere, so the person's setting
        is read from their config files (`git config` runs no program)."""
        found = subprocess.run(
            ["git", "config", "--get", "core.hooksPath"], cwd=self.root, capture_output=True,
            text=True, encoding="utf-8", errors="surrogateescape", stdin=subprocess.DEVNULL,
        ).stdout.strip()  # fmt: skip
        if found:
            return self.root / Path(found).expanduser()
        return self.root / self._out("rev-parse", "--git-common-dir").strip() / "hooks"

    def put_blob(self, path: str, blob: str) -> None:
        """Write a stored blob back to `path` ("-": remove it)."""
        target = self.root / path
        if blob == "-":
            with contextlib.suppress(FileNotFoundError):
                target.unlink()
            return
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
        target.parent.mkdir(parents=True, exist_ok=True)
        fsutil.atomic_write_bytes(target, self._blob(blob), fault="vcs.put_back")
        os.chmod(target, mode)


#: Files git opens by name wherever it looks (a FIFO there makes it wait for ever).
_RULE_FILES = frozenset({".gitignore", ".gitattributes", ".gitmodules", ".mailmap"})


def _clear_rule_files(root: Path) -> list[tuple[str, str]]:
    """Remove what is no file and no link but named like git's rule files in the
    worktree (a FIFO, a socket: they hold no content): `(path, kind)` of each. Folders
    git does not look into for them are skipped (`.git`, caches, `node_modules`, a
    virtual environment)."""
    found = []
    for folder, dirs, names in os.walk(root):
        if "pyvenv.cfg" in names:
            dirs[:] = []
        dirs[:] = [d for d in dirs if d != ".git" and d not in VOLATILE_DIRS]
        for name in _RULE_FILES.intersection(names):
            path = os.path.join(folder, name)
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode) or stat.S_ISLNK(mode) or stat.S_ISDIR(mode):
                continue
            kind = "FIFO" if stat.S_ISFIFO(mode) else "special file"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
            found.append((Path(path).relative_to(root).as_posix(), kind))
    return sorted(found)


def _attributed(files: Sequence[str], changed: Sequence[str]) -> list[str]:
    """The files whose checkout a tree's `.gitattributes` may have changed: none when it
    holds none; every file when one of them changed; else the files that changed."""
    rules = [f for f in files if f.rsplit("/", 1)[-1] == ".gitattributes"]
    if not rules:
        return []
    return list(files) if set(rules) & set(changed) else list(changed)


def _with_folders(paths: set[str]) -> set[str]:
    """`paths` and every folder above them (repo-relative)."""
    out = set(paths)
    for path in paths:
        parts = path.split("/")
        out.update("/".join(parts[:i]) for i in range(1, len(parts)))
    return out


def _holds(held: set[str], link: Path, top: Path) -> bool:
    """Whether `held` (the files a tree holds, with their folders) holds what the
    in-repository `link` points to. A target that does not exist is a broken link in
    the worktree as in a clone."""
    target = link.resolve()
    if not target.exists():
        return True
    rel = target.relative_to(top).as_posix()
    return rel == "." or rel in held


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
