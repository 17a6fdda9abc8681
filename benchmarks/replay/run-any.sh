#!/usr/bin/env bash
# ../shared/replay/run.sh as it is, with two more settings (this project's copy):
#   REPLAY_CONFIG=FILE    the ranges to replay (default: the tool's ranges.json;
#                         benchmarks/replay/ranges-extra.json: four more libraries)
#   REPLAY_RESULTS=DIR    where results.md/.json are copied (default: the tool's results/)
#   REPLAY_TOOL=DIR       the replay tool (default: ../shared/replay beside the checkout)
# Replay real history through the executor: rebuild everything and rerun it.
#
#   REPLAY_MIRRORS=/path/to/snapshots [EXECUTOR=/path/to/executor] [REPLAY_WORK=dir] \
#     [REPLAY_ONLY="tabulate"] bash run.sh
#
# REPLAY_MIRRORS: a folder of git snapshots of the public repositories named
#   <owner>+<name>/repo (more-itertools/more-itertools, astanin/python-tabulate).
# EXECUTOR: the executor to measure (default: `executor` on PATH).
# REPLAY_WORK: where to build (default: a new temporary folder); results.md and
#   results.json are written there and copied to ./results/.
# The last line is `replay: A/N accepted, F false blocks, overhead X.Yx`; exit 0 only
# when there is no false block and every commit the executor made holds the real tree.
set -euo pipefail
HERE=${REPLAY_TOOL:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../shared/replay" && pwd)}
: "${REPLAY_MIRRORS:?set REPLAY_MIRRORS to the folder holding <owner>+<name>/repo snapshots}"
EXE=${EXECUTOR:-$(command -v executor || true)}
[ -n "$EXE" ] && [ -x "$EXE" ] || { echo "no executor: set EXECUTOR or put executor on PATH" >&2; exit 2; }
EXE=$(cd "$(dirname "$EXE")" && pwd)/$(basename "$EXE")
WORK=${REPLAY_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/replay.XXXXXX")}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

# The libraries' tests run with a venv of their own (pytest only: both libraries need
# nothing else), first on PATH, so `python -m pytest` in the plans is that venv's.
TVENV=$WORK/test-venv
if [ ! -x "$TVENV/bin/python" ]; then
  python3 -m venv "$TVENV"
  "$TVENV/bin/pip" install -q "pytest>=8,<10" >"$WORK/pip.log" 2>&1 || { cat "$WORK/pip.log" >&2; exit 2; }
fi

# A git identity of its own, no system config; no pre-commit on PATH (the libraries'
# .pre-commit-config.yaml would need the network to install its hooks).
export HOME=$WORK/home GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
git config --global user.name "Replay Bench"
git config --global user.email "replay@example.invalid"
git config --global init.defaultBranch main
export PATH="$TVENV/bin:$PATH"
only=()
for name in ${REPLAY_ONLY:-}; do only+=(--only "$name"); done

echo "executor: $EXE ($("$EXE" --version 2>/dev/null || echo '?'))"
echo "pytest: $("$TVENV/bin/python" -m pytest --version 2>&1 | head -1); work: $WORK"
set +e
"$TVENV/bin/python" "$HERE/bench.py" --config "${REPLAY_CONFIG:-$HERE/ranges.json}" --mirrors "$REPLAY_MIRRORS" \
  --work "$WORK/runs" --executor "$EXE" "${only[@]}" | tee "$WORK/summary.txt"
rc=${PIPESTATUS[0]}
set -e
RES=${REPLAY_RESULTS:-$HERE/results}; mkdir -p "$RES"
cp "$WORK/runs/results.md" "$WORK/runs/results.json" "$RES/" 2>/dev/null || true
exit "$rc"
