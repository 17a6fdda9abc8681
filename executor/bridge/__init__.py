"""The exit-42 agent bridge: request/response files, binding, emissions, the ledger.

Public API (seed 000/002 names, used by later code and other programs)::

    from executor.bridge import AgentBridgeInvoker, StateManager, AgentInvocationError

Imports only the standard library and our own light modules: the resume path is
measured in milliseconds.
"""

from __future__ import annotations

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
