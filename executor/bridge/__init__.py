"""The exit-42 agent bridge: request/response files, binding, emissions, the ledger.

Public API (seed 000/002 names, used by later code and other programs)::

    from executor.bridge import AgentBridgeInvoker, StateManager, AgentInvocationError

Imports only the standard library and our own light modules, each on first use: the
resume path is measured in milliseconds.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from executor.bridge.invoker import AgentBridgeInvoker
    from executor.bridge.models import (
        AgentRequest,
        AgentResponse,
        Consumed,
        InvokerLedger,
        Ledger,
        PendingRequest,
    )
    from executor.bridge.protocol import BridgeChannel, Reply
    from executor.bridge.state_manager import StateManager
    from executor.bridge.template_state import TemplateCreateState
    from executor.errors import AgentInvocationError

#: name -> the module that defines it (loaded on first use: the engine imports
#: `executor.bridge.models` on the resume path and must not pay for the invoker).
_WHERE = {
    "AgentBridgeInvoker": "executor.bridge.invoker",
    "AgentInvocationError": "executor.errors",
    "AgentRequest": "executor.bridge.models",
    "AgentResponse": "executor.bridge.models",
    "BridgeChannel": "executor.bridge.protocol",
    "Consumed": "executor.bridge.models",
    "InvokerLedger": "executor.bridge.models",
    "Ledger": "executor.bridge.models",
    "PendingRequest": "executor.bridge.models",
    "Reply": "executor.bridge.protocol",
    "StateManager": "executor.bridge.state_manager",
    "TemplateCreateState": "executor.bridge.template_state",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'executor.bridge' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)


__all__ = [
    "AgentBridgeInvoker",
    "AgentInvocationError",
    "AgentRequest",
    "AgentResponse",
    "BridgeChannel",
    "Consumed",
    "InvokerLedger",
    "Ledger",
    "PendingRequest",
    "Reply",
    "StateManager",
    "TemplateCreateState",
]
