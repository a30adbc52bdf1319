"""Guardrail fixtures: one PII analyser and one injection detector per test session (the
analyser takes a second to build; the detector shares the session's real embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.guardrails.injection import InjectionDetector
from regintel.guardrails.input import InputGuardrail
from regintel.guardrails.pii import PiiDetector
from regintel.guardrails.toxicity import ToxicityChecker

SHARED = Path(__file__).resolve().parents[4] / "shared" / "data"
GUARD_DATA = SHARED / "guardrails"
OBLIQA = SHARED / "obliqa"
INJECTIONS = GUARD_DATA / "prompt_injections_train.jsonl"
BIPIA = GUARD_DATA / "bipia_text_attack_train.json"
RULEBOOKS = OBLIQA / "rulebooks_txt"
PUBLIC = (Path(__file__).resolve().parents[3] / "research" / "training" / "data"
          / "injection_public_train.jsonl")


@pytest.fixture(scope="session")
def pii() -> PiiDetector:
    return PiiDetector()


@pytest.fixture(scope="session")
def detector(embedder: LocalEmbedder) -> InjectionDetector:
    return InjectionDetector(embedder)


@pytest.fixture(scope="session")
def guardrail(pii: PiiDetector, detector: InjectionDetector) -> InputGuardrail:
    return InputGuardrail(pii, detector, ToxicityChecker())


@pytest.fixture(scope="session")
def obliqa_questions() -> list[str]:
    return [q["Question"] for q in json.loads((OBLIQA / "ObliQA_dev.json").read_text())]


@pytest.fixture(scope="session")
def bipia_attacks() -> dict[str, list[str]]:
    attacks: dict[str, list[str]] = json.loads(BIPIA.read_text())
    return attacks
