"""The names of the exit-42 files in a run folder: the kernel's layout and the bridge
both name them, so they live below both."""

from __future__ import annotations

REQUEST_NAME = ".agent-request.json"
RESPONSE_NAME = ".agent-response.json"
BRIEFS_DIR = ".agent-briefs"
