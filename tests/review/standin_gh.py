"""A stand-in for GitHub's `gh`: records each call's arguments (one JSON line in
$GH_RECORD) and answers as the real one would, without a network.

- `gh auth status`: exit 0, or 1 with gh's words when $GH_LOGGED_OUT is set;
- `gh pr list ... --jq .[0].url`: $GH_OPEN_PR (the address of an open pull request), or
  nothing;
- `gh pr create ...`: prints the new pull request's address; `gh pr edit ...`: exit 0.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> int:
    args = sys.argv[1:]
    with Path(os.environ["GH_RECORD"]).open("a", encoding="utf-8") as f:
        f.write(json.dumps({"args": args, "cwd": os.getcwd()}) + "\n")
    if args[:2] == ["auth", "status"]:
        if os.environ.get("GH_LOGGED_OUT"):
            print("You are not logged into any GitHub hosts. To log in, run: gh auth login",
                  file=sys.stderr)  # fmt: skip
            return 1
        print("github.com\n  ✓ Logged in to github.com account someone")
        return 0
    if args[:2] == ["pr", "list"]:
        print(os.environ.get("GH_OPEN_PR", ""))
        return 0
    if args[:2] == ["pr", "create"]:
        print("https://github.com/someone/calc/pull/7")
        return 0
    if args[:2] == ["pr", "edit"]:
        return 0
    print(f"standin gh: unexpected {args}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
