"""The relevance model. A linear ranking score over features of each candidate (trained
listwise: softmax over each question's candidates), turned into a probability that the chunk
answers the question by a Platt calibration on the score and its gap to the question's best
score. Both are fitted on ObliQA dev fold 0 only.

The weights are a versioned artefact (``relevance_model.json``), written by
``python -m research.training.train_relevance`` and evaluated by
``regintel bench retrieval --fold 1``."""

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

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, Field

from regintel.domain.documents import Document, StoredChunk, TermCoverage
from regintel.retrieval.candidates import Candidate

RRF_K = 60
_WORD = re.compile(r"[a-z0-9]+")
_UNCOVERED = TermCoverage()
_CLAUSE_NUMBER = re.compile(r"\b\d+(?:\.\d+[a-z]?)+\b")
# Words too common to make an adjacent pair informative.
_STOP = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "if", "in",
    "is", "it", "its", "of", "on", "or", "that", "the", "their", "there", "these", "this", "to",
    "under", "what", "when", "which", "who", "will", "with",
))


def sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


class RelevanceModel(BaseModel):
    version: int = 2
    features: tuple[str, ...]
    weights: tuple[float, ...]
    # p = sigmoid(a·score + b·(score − best score of the question) + c)
    calibration: tuple[float, float, float] = (1.0, 0.0, 0.0)
    # A learned query-side map q' = normalize(q + q·A) (file beside the model); passage vectors
    # are untouched, so it needs no re-embedding and costs one 384×384 product per query.
    query_adapter: str | None = None
    trained_on: str = ""
    notes: str = ""
    adapter: Any = Field(default=None, exclude=True, repr=False)

    def adapt_query(self, vector: Sequence[float]) -> list[float]:
        if self.adapter is None:
            return [float(x) for x in vector]
        q = np.asarray(vector, dtype=np.float32)
        return [float(x) for x in apply_adapter(self.adapter, q[None, :])[0]]

    def score(self, values: Mapping[str, float]) -> float:
        return sum(w * values[f] for f, w in zip(self.features, self.weights, strict=True))

    def probabilities(self, rows: Sequence[Mapping[str, float]]) -> list[float]:
        """Calibrated relevance of each candidate of one question (needs them all: the gap
        to the best candidate is part of the calibration)."""
        scores = [self.score(r) for r in rows]
        best = max(scores, default=0.0)
        a, b, c = self.calibration
        return [sigmoid(a * s + b * (s - best) + c) for s in scores]


def apply_adapter(adapter: npt.NDArray[np.float32],
                  queries: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    adapted = queries + queries @ adapter
    norms = np.linalg.norm(adapted, axis=1, keepdims=True)
    return (adapted / np.where(norms == 0, 1, norms)).astype(np.float32)


@lru_cache(maxsize=4)
def load_model(path: str | None = None) -> RelevanceModel:
    base = Path(path).parent if path else None
    if path is None:
        raw = resources.files("regintel.retrieval").joinpath("relevance_model.json").read_text()
    else:
        raw = Path(path).read_text()
    model = RelevanceModel.model_validate(json.loads(raw))
    if model.query_adapter:
        source = (base / model.query_adapter) if base else \
            resources.files("regintel.retrieval").joinpath(model.query_adapter)
        with source.open("rb") as handle:
            model.adapter = np.load(handle).astype(np.float32)
    return model


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _pairs(text: str) -> set[tuple[str, str]]:
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOP]
    return set(pairwise(words))


def _section(clause: str | None) -> str:
    """The clause one level up ("5.13A.5.1" → "5.13A.5"): passages of one section."""
    if not clause:
        return ""
    cut = max(clause.rstrip(".)").rfind("."), clause.rstrip(".)").rfind("("))
    return clause[:cut] if cut > 0 else clause


def _context(candidates: Sequence[Candidate],
             fetched: Mapping[Any, tuple[StoredChunk, Document]],
             top: int = 20) -> tuple[dict[Any, float], dict[Any, int], dict[tuple[Any, str], int]]:
    """How much the question's best candidates concentrate on one document or section: an
    answer usually sits where several strong candidates agree."""
    best_by_doc: dict[Any, float] = {}
    for c in candidates:
        doc = fetched[c.chunk_id][1].id
        best_by_doc[doc] = max(best_by_doc.get(doc, 0.0), c.rrf(RRF_K))
    leaders = sorted(candidates, key=lambda c: -c.rrf(RRF_K))[:top]
    docs: dict[Any, int] = {}
    sections: dict[tuple[Any, str], int] = {}
    for c in leaders:
        chunk, document = fetched[c.chunk_id]
        docs[document.id] = docs.get(document.id, 0) + 1
        key = (document.id, _section(chunk.clause))
        sections[key] = sections.get(key, 0) + 1
    return best_by_doc, docs, sections


def features(query: str, candidates: Sequence[Candidate],
             fetched: Mapping[Any, tuple[StoredChunk, Document]],
             coverage: Mapping[Any, TermCoverage] | None = None) -> list[dict[str, float]]:
    """One feature dict per candidate (same order). Scores are normalised within the query so
    the model transfers across corpora of different size; the coverage of the question's
    wording is absolute, which keeps an off-topic question's best passage improbable."""
    coverage = coverage or {}
    max_lex = max((c.lexical_score or 0.0 for c in candidates), default=0.0) or 1.0
    max_rrf = max((c.rrf(RRF_K) for c in candidates), default=0.0) or 1.0
    best_by_doc, doc_counts, section_counts = _context(candidates, fetched)
    dense_floor = min((c.dense_sim for c in candidates if c.dense_sim is not None), default=0.0)
    query_words = _words(query)
    query_pairs = _pairs(query)
    query_clauses = set(_CLAUSE_NUMBER.findall(query.lower()))
    rows = []
    for c in candidates:
        chunk, document = fetched[c.chunk_id]
        held = coverage.get(c.chunk_id, _UNCOVERED)
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
            "brief": 1.0 if len(chunk.text) < 150 else 0.0,
            "has_list": 1.0 if "(a)" in chunk.text else 0.0,
            "doc_best": best_by_doc[document.id] / max_rrf,
            "doc_share": doc_counts.get(document.id, 0) / 20,
            "section_share": section_counts.get((document.id, _section(chunk.clause)), 0) / 20,
            "idf_coverage": held.idf_share,
            "coverage_len": held.weighted_share,
        })
    return rows
