"""The input guardrail: the first step of every chat turn, and the checks the rest of the
pipeline borrows (passage screening, PII in answers).

Order: PII is masked first (it is never a reason to refuse); the injection model reads the
text as written (it runs here, so nothing leaves, and the masks' "<EMAIL_ADDRESS>" tokens are
a shape it never learned: "I am <EMAIL_ADDRESS>; call me" scored 0.59 masked, 0.33 as sent),
and toxicity reads the masked text: a rule-matched attack is reported as injection, abuse as
toxicity, and what only the model flags as injection. A blocked message gets a short,
professional early response and the pipeline does not run; the log lines say what was found
without repeating it."""

from __future__ import annotations

import logging
from collections import Counter
from typing import TYPE_CHECKING

from regintel.errors import ConfigurationError
from regintel.guardrails.injection import InjectionDetector, shipped_model
from regintel.guardrails.models import UNMASKED, InputVerdict, PiiFinding
from regintel.guardrails.toxicity import ToxicityChecker

if TYPE_CHECKING:
    from regintel.guardrails.pii import PiiDetector
    from regintel.ports.embedder import Embedder

log = logging.getLogger(__name__)

INJECTION_RESPONSE = (
    "This request cannot be processed: it contains instructions that attempt to change how the "
    "assistant operates. Please rephrase your compliance question.")
TOXICITY_RESPONSE = (
    "This request cannot be processed: it contains abusive or threatening language. Please "
    "rephrase your question in professional terms.")


class InputGuardrail:
    """Satisfies ``regintel.chat.deps.Guard``: ``check``, ``scan_passage``, ``find_pii``."""

    def __init__(self, pii: PiiDetector, injection: InjectionDetector,
                 toxicity: ToxicityChecker) -> None:
        self.pii = pii
        self.injection = injection
        self.toxicity = toxicity

    def check(self, text: str) -> InputVerdict:
        masked = self.pii.mask(text)
        lines = [f"pii: masked {n} {kind}" for kind, n in
                 sorted(Counter(f.entity_type for f in masked.findings).items())]
        found = list(masked.findings)

        injection = self.injection.score(text)
        toxic = self.toxicity.check(masked.text)
        # A known attack phrasing outranks abuse; abuse outranks the model's probability (the
        # attacks it learned from are often abusive too, and "abusive" is the truer answer).
        if injection.rules or (injection.injection and not toxic.toxic):
            why = f"rules {', '.join(injection.rules)}" if injection.rules else \
                f"model p={injection.probability:.2f} ≥ {self.injection.model.threshold:.2f}"
            return InputVerdict(blocked=True, category="injection", response=INJECTION_RESPONSE,
                                masked_text=masked.text, pii=found,
                                log=[*lines, f"injection: blocked ({why})"])
        if toxic.toxic:
            return InputVerdict(blocked=True, category="toxicity", response=TOXICITY_RESPONSE,
                                masked_text=masked.text, pii=found,
                                log=[*lines, f"toxicity: blocked ({toxic.category}, "
                                             f"{len(toxic.terms)} term(s))"])
        return InputVerdict(blocked=False, masked_text=masked.text, pii=found, log=lines)

    def scan_passage(self, text: str) -> bool:
        """True when retrieved text carries instructions aimed at the assistant."""
        return self.injection.scan_passage(text)

    def output_pii(self, text: str) -> list[PiiFinding]:
        """Personal data in an answer (the output guardrail masks what the sources lack)."""
        return [f for f in self.pii.find(text) if f.entity_type not in UNMASKED]

    def find_pii(self, text: str) -> list[tuple[str, int, int]]:
        """``(entity_type, start, end)`` of each maskable PII span in ``text``."""
        return [(f.entity_type, f.start, f.end) for f in self.output_pii(text)]


def build_guardrail(embedder: Embedder) -> InputGuardrail:
    """The guardrail with the shipped injection weights. They were trained on
    all-MiniLM-L6-v2 vectors: when ``embedder`` is another model, a local all-MiniLM-L6-v2
    is loaded for the guardrail alone (the ``embeddings`` extra must be installed)."""
    try:
        from regintel.guardrails.pii import PiiDetector
    except ImportError as exc:
        raise ConfigurationError("PII detection needs the 'guardrails' extra",
                                 hint="pip install 'regintel[guardrails]'") from exc
    model = shipped_model()
    if (embedder.model_name, embedder.dimension) != (model.embedding_model,
                                                      model.embedding_dimension):
        from regintel.adapters.embeddings.local import LocalEmbedder

        log.warning("guardrail: %s is not the injection model's embedder; loading local %s",
                    embedder.model_name, model.embedding_model)
        embedder = LocalEmbedder(model.embedding_model)
    return InputGuardrail(PiiDetector(), InjectionDetector(embedder, model), ToxicityChecker())
