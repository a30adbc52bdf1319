"""Personal-data detection and masking with Presidio, fully offline.

Presidio runs on a blank spaCy English pipeline (tokens only, no model download) with the
pattern recognizers of ``pii_recognizers``; the public-suffix list it needs for URL checks is
tldextract's bundled snapshot (e-mails are masked whatever their domain). When the spaCy
model ``en_core_web_sm`` is installed, it replaces the blank pipeline and names, places and
organisations are detected too (as PERSON, GPE, ORGANIZATION); otherwise they are not —
nothing is ever downloaded.

The analyser is built once per detector (about a second); ``find`` then takes a few
milliseconds on a question-sized text."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any

import spacy
from presidio_analyzer import AnalyzerEngine, EntityRecognizer, RecognizerRegistry
from presidio_analyzer.context_aware_enhancers import LemmaContextAwareEnhancer
from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine
from presidio_analyzer.predefined_recognizers import SpacyRecognizer
from spacy.language import Language
from spacy.tokens import Doc

from regintel.guardrails.models import UNMASKED, MaskedText, PiiFinding
from regintel.guardrails.pii_recognizers import all_recognizers

log = logging.getLogger(__name__)

NER_MODEL = "en_core_web_sm"
SCORE_THRESHOLD = 0.4
# Presidio's names for what a spaCy NER model finds, as the chat and the benchmark name them.
NER_ENTITIES = {"PERSON": "PERSON", "LOCATION": "GPE", "ORGANIZATION": "ORGANIZATION"}


@Language.component("regintel_lower_lemma")
def _lower_lemma(doc: Doc) -> Doc:
    """The blank pipeline has no lemmatizer; Presidio's context words match lemmas, so the
    lower-cased token stands in for it."""
    for token in doc:
        token.lemma_ = token.lower_
    return doc


class OfflineSpacyNlpEngine(SpacyNlpEngine):
    """Presidio's spaCy engine that never downloads: the installed NER model when there is
    one, else ``spacy.blank("en")``."""

    def __init__(self, *, use_ner: bool) -> None:
        mapping = {"PERSON": "PERSON", "PER": "PERSON", "GPE": "LOCATION", "LOC": "LOCATION",
                   "ORG": "ORGANIZATION"}
        config = NerModelConfiguration(
            model_to_presidio_entity_mapping=mapping,
            labels_to_ignore=["CARDINAL", "DATE", "EVENT", "FAC", "LANGUAGE", "LAW", "MONEY",
                              "NORP", "ORDINAL", "PERCENT", "PRODUCT", "QUANTITY", "TIME",
                              "WORK_OF_ART"])
        super().__init__(models=[{"lang_code": "en", "model_name": NER_MODEL if use_ner
                                  else "blank"}], ner_model_configuration=config)
        self._use_ner = use_ner

    def load(self) -> None:
        if self._use_ner:
            nlp = spacy.load(NER_MODEL, exclude=["parser", "lemmatizer"])
        else:
            nlp = spacy.blank("en")
        nlp.add_pipe("regintel_lower_lemma", last=True)
        # spaCy lists "call" as a stop word, and Presidio skips stop words when it looks for
        # context: "call me on 9472 7916" would go unnoticed.
        nlp.vocab["call"].is_stop = False
        self.nlp = {"en": nlp}  # type: ignore[assignment]  # Presidio annotates it as None


def ner_model_installed() -> bool:
    return bool(spacy.util.is_package(NER_MODEL))


class PiiDetector:
    """Finds and masks personal data. Thread-safe after construction."""

    def __init__(self, *, use_ner: bool | None = None,
                 extra_recognizers: Iterable[EntityRecognizer] = ()) -> None:
        self.uses_ner = ner_model_installed() if use_ner is None else use_ner
        recognizers: list[EntityRecognizer] = [*all_recognizers(), *extra_recognizers]
        if self.uses_ner:
            recognizers.append(SpacyRecognizer(supported_entities=list(NER_ENTITIES)))
        else:
            log.info("spaCy model %s not installed: names and places are not detected",
                     NER_MODEL)
        nlp_engine = OfflineSpacyNlpEngine(use_ner=self.uses_ner)
        nlp_engine.load()
        self._analyzer = AnalyzerEngine(
            registry=RecognizerRegistry(recognizers=recognizers, supported_languages=["en"]),
            nlp_engine=nlp_engine, supported_languages=["en"],
            default_score_threshold=SCORE_THRESHOLD,
            context_aware_enhancer=LemmaContextAwareEnhancer(
                context_prefix_count=6, context_suffix_count=6,
                context_matching_mode="whole_word"))
        self._lock = threading.Lock()
        self.entities = tuple(sorted({NER_ENTITIES.get(e, e) for r in recognizers
                                      for e in r.supported_entities}))

    def find(self, text: str) -> list[PiiFinding]:
        """Non-overlapping findings in text order. Where two overlap, the higher score wins,
        then the longer span (an e-mail over the domain inside it)."""
        if not text.strip():
            return []
        with self._lock:  # spaCy pipelines and Presidio's recognizers are not re-entrant
            results: list[Any] = self._analyzer.analyze(text=text, language="en")
        ranked = sorted(results, key=lambda r: (-r.score, -(r.end - r.start), r.start))
        kept: list[PiiFinding] = []
        for r in ranked:
            if any(r.start < k.end and k.start < r.end for k in kept):
                continue
            kept.append(PiiFinding(entity_type=NER_ENTITIES.get(r.entity_type, r.entity_type),
                                   start=r.start, end=r.end, score=round(float(r.score), 3),
                                   text=text[r.start:r.end]))
        return sorted(kept, key=lambda f: f.start)

    def mask(self, text: str) -> MaskedText:
        """``text`` with each maskable finding replaced by ``<ENTITY_TYPE>``."""
        findings = tuple(f for f in self.find(text) if f.entity_type not in UNMASKED)
        return MaskedText(text=mask_spans(text, findings), findings=findings)


def mask_spans(text: str, findings: Iterable[PiiFinding]) -> str:
    out, cursor = [], 0
    for f in sorted(findings, key=lambda f: f.start):
        out += [text[cursor:f.start], f"<{f.entity_type}>"]
        cursor = f.end
    out.append(text[cursor:])
    return "".join(out)
