"""Guardrails of the chat pipeline: PII masking, prompt-injection and toxicity checks on the
user's message, and planted-instruction screening of retrieved passages.

``build_guardrail(embedder)`` gives the ``InputGuardrail`` the pipeline calls. Names are
imported on first use: Presidio and spaCy take a second to import, and modules that only need
the rules or the feature code should not pay for them."""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from regintel.guardrails.injection import InjectionDetector, InjectionScore
    from regintel.guardrails.input import InputGuardrail, build_guardrail
    from regintel.guardrails.models import InputVerdict, MaskedText, PiiFinding
    from regintel.guardrails.pii import PiiDetector
    from regintel.guardrails.toxicity import ToxicityChecker, ToxicityResult

_HOMES = {
    "InjectionDetector": "injection", "InjectionScore": "injection",
    "InputGuardrail": "input", "build_guardrail": "input",
    "InputVerdict": "models", "MaskedText": "models", "PiiFinding": "models",
    "PiiDetector": "pii", "ToxicityChecker": "toxicity", "ToxicityResult": "toxicity",
}
# Presidio logs at INFO on import, per recognizer built, and on every analysis ("Fetching all
# recognizers…"): a line per chat turn. Set here, before any submodule imports it.
logging.getLogger("presidio-analyzer").setLevel(logging.WARNING)

__all__ = ["InjectionDetector", "InjectionScore", "InputGuardrail", "InputVerdict",
           "MaskedText", "PiiDetector", "PiiFinding", "ToxicityChecker", "ToxicityResult",
           "build_guardrail"]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(f"regintel.guardrails.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'regintel.guardrails' has no attribute {name!r}")
