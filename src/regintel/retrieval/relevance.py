"""The relevance model: a logistic regression over features of each candidate, so the score is
a probability that the chunk answers the question (calibrated on ObliQA dev, fold 0).

The weights are a versioned artefact (``relevance_model.json``), trained by
``regintel bench train-relevance`` on one fold and evaluated on the other."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from itertools import pairwise
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from regintel.domain.documents import Document, StoredChunk
from regintel.retrieval.candidates import Candidate

RRF_K = 60
_WORD = re.compile(r"[a-z0-9]+")
_CLAUSE_NUMBER = re.compile(r"\b\d+(?:\.\d+[a-z]?)+\b")
# Words too common to make an adjacent pair informative.
_STOP = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "if", "in",
    "is", "it", "its", "of", "on", "or", "that", "the", "their", "there", "these", "this", "to",
    "under", "what", "when", "which", "who", "will", "with",
))


class RelevanceModel(BaseModel):
    version: int = 1
    features: tuple[str, ...]
    weights: tuple[float, ...]
    intercept: float
    trained_on: str = ""
    notes: str = ""

    def probability(self, values: Mapping[str, float]) -> float:
        z = self.intercept + sum(w * values[f] for f, w in zip(self.features, self.weights,
                                                               strict=True))
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


@lru_cache(maxsize=4)
def load_model(path: str | None = None) -> RelevanceModel:
    if path is None:
        raw = resources.files("regintel.retrieval").joinpath("relevance_model.json").read_text()
    else:
        raw = Path(path).read_text()
    return RelevanceModel.model_validate(json.loads(raw))


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _pairs(text: str) -> set[tuple[str, str]]:
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOP]
    return set(pairwise(words))


def features(query: str, candidates: Sequence[Candidate],
             fetched: Mapping[Any, tuple[StoredChunk, Document]]) -> list[dict[str, float]]:
    """One feature dict per candidate (same order). Scores are normalised within the query so
    the model transfers across corpora of different size."""
    max_lex = max((c.lexical_score or 0.0 for c in candidates), default=0.0) or 1.0
    dense_floor = min((c.dense_sim for c in candidates if c.dense_sim is not None), default=0.0)
    query_words = _words(query)
    query_pairs = _pairs(query)
    query_clauses = set(_CLAUSE_NUMBER.findall(query.lower()))
    rows = []
    for c in candidates:
        chunk, document = fetched[c.chunk_id]
        chunk_words = _words(chunk.text)
        clause = (chunk.clause or "").lower().rstrip(".)")
        title_words = _words(document.title) - {"and", "of", "the", "rules", "guidance"}
        rows.append({
            "rrf": c.rrf(RRF_K) * RRF_K,
            "dense_sim": c.dense_sim if c.dense_sim is not None else dense_floor,
            "dense_missing": 1.0 if c.dense_rank is None else 0.0,
            "lexical_norm": (c.lexical_score or 0.0) / max_lex,
            "lexical_missing": 1.0 if c.lexical_rank is None else 0.0,
            "inv_dense_rank": 1.0 / c.dense_rank if c.dense_rank else 0.0,
            "inv_lexical_rank": 1.0 / c.lexical_rank if c.lexical_rank else 0.0,
            "log_len": math.log1p(len(chunk.text)),
            "short": 1.0 if len(chunk.text) < 80 else 0.0,
            "overlap": len(query_words & chunk_words) / max(1, len(query_words)),
            "title_mention": 1.0 if title_words and title_words & query_words else 0.0,
            "pairs": len(query_pairs & _pairs(chunk.text)) / max(1, len(query_pairs)),
            "clause_mention": 1.0 if clause and any(q == clause or q in chunk.text.lower()
                                                    for q in query_clauses) else 0.0,
            "long": 1.0 if len(chunk.text) > 1500 else 0.0,
            "has_tab": 1.0 if "\t" in chunk.text else 0.0,
        })
    return rows
