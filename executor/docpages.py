"""The documentation pages the executor carries (docs/*.md), by topic: `executor docs`.

A topic is a page's file name without `.md` (`reliability`, `exit-codes`); a name is
also read as `docs/reliability.md`, `reliability.md` or a prefix only one topic has.
The pages are found where `executor.resources` finds the shipped files (the wheel's
`executor/_data/docs`, or the checkout's `docs/`), so a pip install has them too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from executor.errors import UserError
from executor.resources import data_path


@dataclass(frozen=True)
class Page:
    topic: str
    path: Path

    def title(self) -> str:
        """The page's first heading (`# ...`), or its topic when it has none."""
        with self.path.open(encoding="utf-8") as lines:
            for line in lines:
                if line.startswith("# "):
                    return line[2:].strip()
        return self.topic

    def text(self) -> str:
        return self.path.read_text("utf-8")


def pages(folder: Path | None = None) -> list[Page]:
    """Every page, by topic."""
    where = folder or data_path("docs")
    found = sorted(where.glob("*.md")) if where.is_dir() else []
    if not found:
        raise UserError(
            f"no documentation pages in {where}: this installation lacks them; reinstall "
            f"plan-executor (pip install --force-reinstall plan-executor)"
        )
    return [Page(p.stem, p) for p in found]


def find(name: str, folder: Path | None = None) -> Page:
    """The page `name` names (a topic, `docs/TOPIC.md`, `TOPIC.md`, a unique prefix);
    UserError (exit 64) naming the topics when it names none or several."""
    every = pages(folder)
    topic = name.strip().lower().removeprefix("docs/").removesuffix(".md")
    exact = [p for p in every if p.topic == topic]
    matches = exact or [p for p in every if topic and p.topic.startswith(topic)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        some = ", ".join(p.topic for p in matches)
        raise UserError(f"docs topic {name!r} could be any of: {some}; give more of its name")
    listed = ", ".join(p.topic for p in every)
    raise UserError(f"no docs topic {name!r}; the topics: {listed} (`executor docs` lists them)")
