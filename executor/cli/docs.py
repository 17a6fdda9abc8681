"""`executor docs [TOPIC]`: the documentation pages the installed executor carries
(`executor.docpages`), listed, or one printed (through a pager on a terminal)."""

from __future__ import annotations

from executor.cli.spec import Commands
from executor.params import Param

commands = Commands()


@commands(
    "docs",
    Param("topic", metavar="TOPIC",
          help="A page: its topic (reliability, exit-codes, engine, ...), docs/TOPIC.md, "
          "or the start of a topic's name (default: list the topics)."),
)  # fmt: skip
def docs(topic: str | None) -> None:
    """The documentation: list the topics, or print one page (TOPIC)."""
    from executor import console
    from executor.cli import common

    def body() -> int:
        from executor import docpages

        if topic is None:
            every = docpages.pages()
            width = max(len(p.topic) for p in every)
            for page in every:
                console.out(f"{page.topic.ljust(width)}  {page.title()}")
            return 0
        text = docpages.find(topic).text()
        if console.is_tty():  # a person reads it: a pager (PAGER, else less, else plain)
            import pydoc

            pydoc.pager(console.shown(text))
        else:
            console.out(text.rstrip("\n"))
        return 0

    common.run(body)
