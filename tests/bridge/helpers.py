"""Small helpers shared by the bridge tests (real files, no mocks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def response_payload(request_id: str, **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "request_id": request_id,
        "version": "1.0",
        "status": "success",
        "response": "Test agent response",
        "error_message": None,
        "error_type": None,
        "created_at": "2025-01-11T10:00:00Z",
        "duration_seconds": 5.0,
        "metadata": {},
    }
    data.update(fields)
    return data


def write_response(path: Path, request_id: str, **fields: Any) -> Path:
    path.write_text(json.dumps(response_payload(request_id, **fields)), encoding="utf-8")
    return path


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))
