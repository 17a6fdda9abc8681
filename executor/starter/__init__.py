"""`executor init`: a starter plan and the project's config, for a project that has none.

`detect` tells what kind of project a folder is and the test command it runs
(`detect.py`); `plans` writes a one-session plan in the chosen format that
`executor plan validate` accepts (`plans.py`); `config` adds `[tool.executor]` to an
existing pyproject.toml (appended: the file's own text is kept byte for byte) or writes
`.executor.toml` (`config.py`). `setup.py` checks that nothing would be overwritten, then
writes both. Nothing here prints or asks: the CLI (`executor/cli/init.py`) does.
"""
