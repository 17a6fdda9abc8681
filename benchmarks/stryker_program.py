"""What Stryker's pin and its checks cost (docs/test-strength.md, "JavaScript and
TypeScript: Stryker"): `program.pin` of a real install (a session takes it when it starts
and at each strength step), and the strength step of tests/starter's shop session (13
mutants, 3 `node --test` tests) with Stryker itself, each kill checked by a sham.

Run: `python benchmarks/stryker_program.py --modules M`, where M is a `node_modules`
holding `@stryker-mutator/core` (`npm install --save-dev @stryker-mutator/core` in an
empty folder). Prints the figures; exits 1 when the step scores other than 11/13.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from executor.strength import program, stryker
from executor.testrun import TestRun, run_tests
from executor.vcs import GitRepo

SHOP = """function total(prices) {
  if (prices.some((p) => p < 0)) throw new Error('a negative price');
  return prices.reduce((sum, p) => sum + p, 0);
}
module.exports = { total };
"""
TESTS = """const test = require('node:test');
const assert = require('node:assert');
const { total } = require('../src/shop.js');
test('adds the prices', () => assert.strictEqual(total([1, 2]), 3));
test('an empty cart is zero', () => assert.strictEqual(total([]), 0));
test('refuses a negative price', () => assert.throws(() => total([-1])));
"""


def shop(root: Path, modules: Path) -> tuple[GitRepo, str]:
    (root / "src").mkdir(parents=True)
    (root / "test").mkdir()
    (root / "src" / "shop.js").write_text(SHOP, "utf-8")
    (root / "test" / "shop.test.js").write_text(TESTS, "utf-8")
    (root / ".gitignore").write_text("node_modules\n", "utf-8")
    (root / "node_modules").symlink_to(modules, target_is_directory=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "shop"]):
        subprocess.run(["git", *argv], cwd=root, check=True, env=env)
    repo = GitRepo(root)
    return repo, repo.tree_of("HEAD")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--modules", type=Path, required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="stryker-program-") as tmp:
        repo, tree = shop(Path(tmp) / "shop", args.modules.resolve())
        packages = len(program.packages(repo.root))
        for _ in range(5):
            wall, cpu = time.monotonic(), time.process_time()
            program.pin(repo.root)
            print(f"pin: {time.monotonic() - wall:.2f} s wall, "
                  f"{time.process_time() - cpu:.2f} s CPU ({packages} packages)")  # fmt: skip

        def run(
            command: str,
            cwd: Path,
            limit: float,
            env: dict[str, str],
            log: Path | None,
            fds: tuple[int, ...],
        ) -> TestRun:
            return run_tests(command, cwd=cwd, timeout_s=limit, env=env, log=log, pass_fds=fds)

        started = time.monotonic()
        got = stryker.measure(
            {"src/shop.js": {1, 2, 3, 4, 5}}, root=repo.root,
            export=lambda dest: repo.export_tree(tree, dest, repository=True), run=run,
            test_command="node --test test/shop.test.js", budget=300,
        )  # fmt: skip
        took = time.monotonic() - started
        wall = time.monotonic()
        subprocess.run(["node", "--test", "test/shop.test.js"], cwd=repo.root,
                       capture_output=True, check=True)  # fmt: skip
        own = time.monotonic() - wall
    print(
        f"Stryker's step: {got.killed}/{got.judged} killed of {got.made} in {took:.1f} s "
        f"(the session's test run: {own:.2f} s){'; ' + got.problem if got.problem else ''}"
    )
    return 0 if (got.killed, got.judged) == (11, 13) else 1


if __name__ == "__main__":
    sys.exit(main())
