"""The guard the chat pipeline is composed with (``regintel.container``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from regintel.guardrails.input import InputGuardrail, build_guardrail

if TYPE_CHECKING:
    from regintel.ports.embedder import Embedder


def build_guard(embedder: Embedder) -> InputGuardrail:
    """``regintel.chat.deps.Guard`` for the chat pipeline: see ``build_guardrail``."""
    return build_guardrail(embedder)
