"""Prompt-injection detection for user messages, and for passages retrieved on their behalf.

A message is an injection when a known attack phrasing matches (``injection_rules``) or when
a logistic regression over its features (``features``: hashed character n-grams plus the
all-MiniLM-L6-v2 sentence embedding) gives a probability at or above the shipped threshold.

The weights (``injection_model.json``) come from ``regintel bench train-injection``:
deepset/prompt-injections, stratified split with a recorded seed, of which the held-out part
(indices in the JSON) is never used for fitting or threshold choice; plus, as in-domain benign
examples, a seeded subset of ObliQA dev questions (the bench reports the benign false-positive
rate on the other, disjoint ObliQA questions) and hand-written chat follow-ups
(``data/chat_benign_train.jsonl``; ``data/chat_benign_test.jsonl`` is their disjoint test
set). The threshold maximises cross-validated accuracy on the training part while keeping the
cross-validated false-positive rate on the in-domain benign rows at or under 1 %. At run time
only numpy is needed.

Held-out figures (110 prompts): model and rules 0.982 accuracy, model alone 0.927, rules alone
0.900; 2 of the 77 held-out chat follow-ups flagged ("How can you help me?", "Search
everything."). The rules were written after reading the file's injection prompts, before the
split was drawn, so the combined figure flatters them; the model-alone figure is the clean
estimate."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from regintel.errors import ConfigurationError
from regintel.guardrails import features
from regintel.guardrails.injection_rules import rule_hits
from regintel.guardrails.passages import PassageScanner
from regintel.ports.embedder import Embedder

MODEL_FILE = "injection_model.json"


class InjectionModel(BaseModel):
    """The shipped weights and how they were made (see ``regintel bench train-injection``)."""

    model_config = ConfigDict(extra="forbid")

    version: int = 1
    embedding_model: str
    embedding_dimension: int
    ngram_range: tuple[int, int]
    buckets: int
    embedding_weight: float
    regularisation_c: float
    threshold: float
    intercept: float
    coef: dict[str, Any] = Field(repr=False)
    idf: dict[str, Any] = Field(repr=False)
    domain_centroid: list[float] = Field(repr=False)
    split: dict[str, Any] = Field(
        description="data_sha256, seed, test_fraction, heldout_indices of the training file.")
    benign: dict[str, Any] = Field(
        description="sha256, seed and tune_indices of the ObliQA questions used in training.")
    metrics: dict[str, Any] = Field(default_factory=dict)
    trained_with: dict[str, str] = Field(default_factory=dict)


def load_model(path: Path | None = None) -> InjectionModel:
    raw = path.read_text() if path else \
        resources.files("regintel.guardrails").joinpath(MODEL_FILE).read_text()
    return InjectionModel.model_validate(json.loads(raw))


@lru_cache(maxsize=1)
def shipped_model() -> InjectionModel:
    return load_model()


class InjectionScore(BaseModel):
    model_config = ConfigDict(frozen=True)

    injection: bool
    probability: float
    rules: tuple[str, ...] = ()


class InjectionDetector:
    """Scores messages; ``embedder`` must be the model the weights were trained with."""

    def __init__(self, embedder: Embedder, model: InjectionModel | None = None) -> None:
        self.model = model or shipped_model()
        if (embedder.model_name, embedder.dimension) != (self.model.embedding_model,
                                                          self.model.embedding_dimension):
            raise ConfigurationError(
                f"the injection model was trained on {self.model.embedding_model} embeddings, "
                f"not {embedder.model_name}",
                hint="build the guardrail with regintel.guardrails.build_guardrail, which picks "
                     "the matching local embedder")
        self._embedder = embedder
        self._coef = features.decode_array(self.model.coef)
        self._idf = features.decode_array(self.model.idf)
        self.passages = PassageScanner(embedder, self.model.domain_centroid)

    def probabilities(self, texts: Sequence[str]) -> list[float]:
        """The linear model's probability for each text (rules not applied)."""
        if not texts:
            return []
        low, high = self.model.ngram_range
        tf = features.hashed_tf(texts, n_min=low, n_max=high, buckets=self.model.buckets)
        x = features.combine(features.tfidf(tf, self._idf), self._embedder.embed(texts),
                             self.model.embedding_weight)
        logits = x.astype(np.float64) @ self._coef.astype(np.float64) + self.model.intercept
        return [1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, float(z))))) for z in logits]

    def score_many(self, texts: Sequence[str]) -> list[InjectionScore]:
        out = []
        for text, p in zip(texts, self.probabilities(texts), strict=True):
            rules = tuple(hit.rule for hit in rule_hits(text))
            out.append(InjectionScore(injection=bool(rules) or p >= self.model.threshold,
                                      probability=round(p, 4), rules=rules))
        return out

    def score(self, text: str) -> InjectionScore:
        return self.score_many([text])[0]

    def is_injection(self, text: str) -> bool:
        return self.score(text).injection

    def scan_passage(self, text: str) -> bool:
        """True when retrieved ``text`` carries instructions aimed at the assistant."""
        return self.passages.is_injected(text)
