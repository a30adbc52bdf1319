"""The confidence of an answer: a calibrated probability that the passages it cites answer
the question. A logistic model over general features of the retrieval (the best relevance
scores and their gap) and of the composed answer (how many passages it cites, how relevant
they are, how much of them is definitions rather than substance, how many of the question's
words they hold, whether the answer leads with an obligation) gives the probability; two
thresholds on it give the tier.

The weights and thresholds are a versioned artefact (``confidence_model.json``), written by
``python -m research.training.train_confidence`` on ObliQA dev fold 0 only (target: the answer
cites at least one gold passage) and evaluated by ``regintel bench answers --fold 1``."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from uuid import UUID

from pydantic import BaseModel

from regintel.domain.chat import Citation
from regintel.domain.documents import ChunkHit
from regintel.retrieval.confidence import Confidence, Tier

FEATURES = ("top1", "gap", "top3_mean", "cited_passages", "cited_none", "cited_best",
            "cited_mean", "cites_top", "definition_share", "definitions_unasked",
            "question_overlap", "leads_obligation", "asks_meaning")

# A definition or interpretation entry, in any rulebook's or policy's wording: a term said to
# mean something ("'Client' means …", "Regulator\tMeans the …"), given the meaning it has
# elsewhere, or told how to be read.
_DEFINES = re.compile(
    r"\b(?:means|shall mean|has the (?:same )?meanings?|have the (?:same )?meanings?|"
    r"is defined (?:as|in|by)|are defined (?:as|in|by)|is to be (?:read|construed|interpreted)|"
    r"are to be (?:read|construed|interpreted)|shall be (?:read|construed|interpreted)|"
    r"a reference to\b.{1,80}\bis a reference to|refers to)\b", re.I)
# What may come before the defined term: "In these Rules, …", "For the purposes of this Part, …".
_LEAD = re.compile(r"^\W{0,3}(?:In|For the purposes? of|Unless the context otherwise requires)"
                   r"\b[^,]{0,80},\s*", re.I)
_NOT_A_TERM = re.compile(r"\b(?:any|all|by|no|other|some|such)\s*$", re.I)  # "by any means"
MAX_TERM_WORDS = 10
# A glossary row: a short term, a tab (or a run of spaces), then what it means.
_GLOSSARY_ROW = re.compile(r"^\s*[A-Z][\w'’/&()\- ]{0,60}?(?:\t|\s{2,})\s*(?:means|has the|"
                           r"refers|is defined|includes)\b", re.I | re.M)
_ASKS_MEANING = re.compile(
    r"\b(?:mean|means|meaning|meant|definitions?|define[sd]?|defining|interpret\w*|"
    r"refers? to|terms?)\b", re.I)
_OBLIGATION = re.compile(
    r"\b(?:must|shall|is required to|are required to|is obliged to|are obliged to|"
    r"has a duty to|have a duty to|is prohibited|are prohibited|may not)\b", re.I)
_WORD = re.compile(r"[a-z][a-z0-9]{2,}")
_STOP = frozenset((
    "the", "and", "for", "are", "was", "were", "what", "which", "who", "whom", "whose", "when",
    "where", "why", "how", "does", "did", "has", "have", "had", "can", "could", "should",
    "would", "will", "shall", "must", "may", "might", "that", "this", "these", "those", "with",
    "from", "into", "onto", "under", "over", "about", "any", "all", "its", "their", "there",
    "they", "them", "such", "than", "then", "also", "other", "some", "being", "been", "not",
    "regarding", "concerning", "relation", "respect", "specific", "particular", "within",
    "upon", "between", "each", "per", "only", "our", "your", "you", "one", "out", "both",
))
GLOSSARY_ROWS = 2  # a chunk with this many glossary rows is a glossary (table)


def is_definition(text: str) -> bool:
    """Whether ``text`` (a quote) is a definition or interpretation entry: a glossary row, or
    a sentence whose first verb defines the short term before it (not a duty that happens to
    say "means": "A firm must ensure that … means …")."""
    if _GLOSSARY_ROW.search(text):
        return True
    found = _DEFINES.search(text)
    if found is None:
        return False
    head = _LEAD.sub("", text[:found.start()].strip())
    return (len(head.split()) <= MAX_TERM_WORDS and not _OBLIGATION.search(head)
            and not _NOT_A_TERM.search(head) and not re.search(r"[.;:]\s", head))


def is_glossary(text: str) -> bool:
    """Whether a passage is a glossary table: several rows of term and meaning."""
    return len(_GLOSSARY_ROW.findall(text)) >= GLOSSARY_ROWS


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _stem(word: str) -> str:
    """Crude: "records"/"recorded"/"recording" meet at "record"; enough for an overlap."""
    for suffix in ("ings", "ing", "ies", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def answer_features(question: str, hits: Sequence[ChunkHit],
                    citations: Sequence[Citation]) -> dict[str, float]:
    """The features of one answer: ``hits`` are the turn's evidence (as retrieved, with the
    chunks fetched around them), ``citations`` the answer's, in the order shown."""
    searched = sorted((h.score for h in hits if h.completes is None), reverse=True)
    top = searched[:3] + [0.0] * (3 - len(searched[:3]))
    by_chunk = {h.chunk_id: h for h in hits}
    # A chunk fetched to complete a list counts with the relevance of the hit it completes.
    score_of: dict[UUID, float] = {}
    for h in hits:
        base = by_chunk.get(h.completes) if h.completes is not None else None
        score_of[h.chunk_id] = max(score_of.get(h.chunk_id, 0.0),
                                   base.score if base is not None else h.score)
    documents = [c for c in citations if c.chunk_id is not None]
    passages: dict[UUID, list[str]] = {}
    for c in documents:
        assert c.chunk_id is not None
        passages.setdefault(c.chunk_id, []).append(c.quote)
    cited_scores = [score_of.get(chunk, 0.0) for chunk in passages]
    definitional = [
        all(is_definition(q) for q in quotes)
        or (chunk in by_chunk and is_glossary(by_chunk[chunk].text))
        for chunk, quotes in passages.items()]
    definition_share = sum(definitional) / len(passages) if passages else 0.0
    asks_meaning = bool(_ASKS_MEANING.search(question))
    asked = {_stem(w) for w in content_words(question)}
    shown = {_stem(w) for q in (q for quotes in passages.values() for q in quotes)
             for w in content_words(q)}
    best_chunk = max((h for h in hits if h.completes is None), key=lambda h: h.score,
                     default=None)
    return {
        "top1": top[0],
        "gap": top[0] - top[1],
        "top3_mean": sum(top) / 3,
        "cited_passages": math.log1p(len(passages)),
        "cited_none": float(not passages),
        "cited_best": max(cited_scores, default=0.0),
        "cited_mean": sum(cited_scores) / len(cited_scores) if cited_scores else 0.0,
        "cites_top": float(best_chunk is not None and best_chunk.chunk_id in passages),
        "definition_share": definition_share,
        "definitions_unasked": 0.0 if asks_meaning else definition_share,
        "question_overlap": len(asked & shown) / len(asked) if asked else 0.0,
        "leads_obligation": float(bool(documents) and bool(_OBLIGATION.search(
            documents[0].quote))),
        "asks_meaning": float(asks_meaning),
    }


class ConfidenceModel(BaseModel):
    """p = sigmoid(w · (x − mean) / scale + intercept); High at p ≥ ``high``, Low below
    ``low`` (the turn then asks before answering), Medium between."""

    version: int = 1
    features: tuple[str, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float
    high: float
    low: float
    trained_on: str = ""
    notes: str = ""

    def probability(self, values: Mapping[str, float]) -> float:
        z = self.intercept + sum(
            w * (values[f] - m) / s
            for f, m, s, w in zip(self.features, self.means, self.scales, self.weights,
                                  strict=True))
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def tier(self, p: float, values: Mapping[str, float] | None = None, *,
             floor: float = 0.0) -> Tier:
        """The tier of probability ``p``. With the answer's features, two things ObliQA cannot
        teach, since every one of its questions is answered in its corpus and hardly any by a
        glossary (definitions are 0.4 % of the passages fold-0 answers cite): an answer whose
        best retrieved passage scores under ``floor`` (the retrieval tier's Low line) stands
        on nothing and is Low, whatever the model extrapolates; and an answer made only of
        definitions for a question that asks no meaning is never High (a definition says
        what a word means, not what is required or allowed)."""
        tier = Tier.HIGH if p >= self.high else Tier.MEDIUM if p >= self.low else Tier.LOW
        if values is not None and values["top1"] < floor:
            return Tier.LOW
        if tier is Tier.HIGH and values is not None and values["definitions_unasked"] >= 1.0:
            return Tier.MEDIUM
        return tier

    def assess(self, question: str, hits: Sequence[ChunkHit], citations: Sequence[Citation],
               *, floor: float = 0.0) -> Confidence:
        """The answer's confidence: its calibrated probability and the tier it falls in."""
        values = answer_features(question, hits, citations)
        p = self.probability(values)
        return Confidence(tier=self.tier(p, values, floor=floor), score=round(p, 4))


MODEL_FILE = "confidence_model.json"


@lru_cache(maxsize=4)
def load_model(path: str | None = None) -> ConfidenceModel:
    """The shipped model, or the one at ``path`` (a trainer's output)."""
    raw = (Path(path).read_text() if path is not None else
           resources.files("regintel.retrieval").joinpath(MODEL_FILE).read_text())
    return ConfidenceModel.model_validate(json.loads(raw))
