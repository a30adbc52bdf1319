"""Sentence-level evidence for the offline engine: the sentences of retrieved chunks, embedded
(or read back from where earlier turns kept them), ranked against a query and diversified with
MMR."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

import numpy as np
import numpy.typing as npt

from regintel.chat.offline import binding
from regintel.domain.coverage import TypedFact
from regintel.domain.documents import ChunkHit
from regintel.ingestion.clauses import find_clauses
from regintel.obligations import facts
from regintel.ports.embedder import Embedder
from regintel.retrieval.evidence import clause_of
from regintel.retrieval.pointers import points_to, under
from regintel.retrieval.unit_vectors import UnitVectors
from regintel.sentences import sentence_spans

MIN_SENTENCE_CHARS = 40
MAX_SENTENCE_CHARS = 600
MAX_HEADING_CHARS = 160
_STRUCTURE = re.compile(r"\\Table (?:Start|End)|^\s*(?:Guidance|Rule)\s*$", re.I)
# Leading numbering: "14.2.3.Guidance.1.", "8.3.6.Guidance on Foreign Public Officials
# (FPOs) and corruption.5.", "3.34.(2)", "4.1", "(a)", "iv)", "-".
_LIST_MARK = re.compile(
    r"^\s*(?:\d+[A-Z]?(?:\.(?:\d+[A-Z]?|Guidance(?: on [^\t\n]{1,120}?\.\d+(?=\.))?|"
    r"\(\d+\)))*\.?(?:\s+|(?=[A-Z]))|"
    r"\(?[a-z0-9ivx]{1,4}[.)]\s+|[-•*]\s+)")
_DEFINITION = re.compile(r"^\S.{0,60}?\s(?:Means|means|has the meaning)\b")
OBLIGATION = re.compile(
    r"\b(?:must|shall|is required to|are required to|required|is to|are to|should|"
    r"may not|must not|shall not|is prohibited|are prohibited|is responsible for|"
    r"will(?! be (?:described|discussed|set out))|will not)\b", re.I)

Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Sentence:
    hit: ChunkHit
    text: str          # verbatim from the chunk
    position: int      # offset in the chunk
    continues: bool = False  # a list that goes on past the text

    @property
    def is_obligation(self) -> bool:
        return bool(OBLIGATION.search(self.text))

    @property
    def binds(self) -> bool:
        """A binding requirement (must/shall/required, not "should"), outside guidance."""
        clause = clause_of(self.hit, self.text) or ""  # its own, not the chunk's first
        return "guidance" not in clause.lower() and binding.binds(self.in_context)

    @property
    def is_heading(self) -> bool:
        """A title ("8.7 Failure to conduct or complete Customer Due Diligence"): short, and
        in capitals or without a closing stop. A list cut short is not one."""
        letters = [c for c in self.clean if c.isalpha()]
        if not letters:
            return True
        if self.continues or len(self.clean) > MAX_HEADING_CHARS:
            return False
        return sum(c.isupper() for c in letters) > 0.6 * len(letters) \
            or not re.search(r"[.;!?]$", self.clean)

    @property
    def is_definition(self) -> bool:
        return bool(_DEFINITION.search(self.clean))

    @property
    def is_statement(self) -> bool:
        """A whole sentence that says something (not a heading, definition or fragment)."""
        return not (self.is_heading or self.is_definition or self.is_fragment)

    @property
    def is_fragment(self) -> bool:
        """Starts mid-sentence (the tail of a list item split at a semicolon), and the chunk
        before does not hold the start."""
        return not self.opening and self.clean[:1].islower()

    @property
    def clean(self) -> str:
        """List markers and tabs removed (the quote stays exact)."""
        return " ".join(_LIST_MARK.sub("", self.text).split())

    @property
    def lead_in(self) -> str | None:
        """The lead-in of the list this sentence belongs to, when it lies in an earlier chunk
        (ChunkHit.lead_in) and no other clause begins before or with the sentence."""
        if not self.hit.lead_in or any(offset <= self.position
                                       for offset, _ in find_clauses(self.hit.text)):
            return None
        return self.hit.lead_in

    @property
    def opening(self) -> str:
        """The first words of the sentence, when the chunk starts inside it and the chunk
        before holds them ("A Relevant" for "Person should be aware …"), else ""."""
        return (self.hit.opening or "") if self.position == 0 else ""

    @property
    def in_context(self) -> str:
        """What the sentence means where it stands: whole, and with its list's lead-in when
        that is in an earlier chunk ("… must maintain the following records: … (e) any
        relevant communications with the authority;")."""
        text = f"{self.opening} {self.text}" if self.opening else self.text
        lead_in = self.lead_in
        return f"{lead_in} {text}" if lead_in else text

    @property
    def shown(self) -> str:
        """For display in an answer: clean and whole, after its list's lead-in when that is
        in an earlier chunk, and "…" where a list goes on (past what was joined, or past the chunk:
        an item that ends in ";", "," or "; and" is not the last)."""
        clean = f"{self.opening} {self.clean}" if self.opening else self.clean
        if self.continues or _GOES_ON.search(clean):
            clean = f"{clean} …"
        lead_in = self.lead_in
        return f"{lead_in} … {clean}" if lead_in else clean


_GOES_ON = re.compile(r"(?:[;,]|;\s*(?:and|or))$")
# A list item after a lead-in ("… any change in its:"): "(a) name;", "- address", "or".
_ITEM = re.compile(r"^(?:\(?[a-z0-9ivx]{1,4}[.)]\s|[-•*]\s|(?:and|or)$)", re.I)


def _with_lists(text: str) -> list[tuple[int, int, bool]]:
    """The chunk's sentence spans, a lead-in ending in ":" joined to the list items that
    follow it: "A Dealer must promptly notify the Regulator of any change in its: (a) name;
    (b) legal status; …" says what the rule requires; the lead-in alone does not, and each
    item alone is a fragment. The flag says a list goes on past what was joined (at most
    MAX_SENTENCE_CHARS)."""
    spans = sentence_spans(text)
    joined: list[tuple[int, int, bool]] = []
    i = 0
    while i < len(spans):
        start, end = spans[i]
        i += 1
        more = False
        if text[start:end].endswith(":"):
            while i < len(spans) and _ITEM.match(text[spans[i][0]:spans[i][1]]):
                if spans[i][1] - start > MAX_SENTENCE_CHARS:
                    more = True
                    break
                end = spans[i][1]
                i += 1
            # A sentence that closes after its list ("whenever an Employee either: (a) knows;
            # (b) suspects, … that Employee promptly notifies …") holds its duty in the words
            # after the items: they are joined too.
            if (not more and end > start and i < len(spans) and text[end - 1] in ",;"
                    and text[spans[i][0]:spans[i][0] + 1].islower()
                    and spans[i][1] - start <= MAX_SENTENCE_CHARS):
                end = spans[i][1]
                i += 1
        joined.append((start, end, more))
    return joined


def sentences_of(hits: Sequence[ChunkHit], *, per_chunk: int = 12) -> list[Sentence]:
    found: list[Sentence] = []
    seen: set[str] = set()
    for hit in hits:
        taken = 0
        for start, end, more in _with_lists(hit.text):
            text = hit.text[start:end]
            key = " ".join(text.split()).lower()
            if (len(text) < MIN_SENTENCE_CHARS or len(text) > MAX_SENTENCE_CHARS
                    or _STRUCTURE.search(text) or key in seen or text.endswith(":")
                    or sum(c.isalpha() for c in text) < len(text) * 0.6):
                continue
            seen.add(key)
            found.append(Sentence(hit, text, start, more))
            taken += 1
            if taken >= per_chunk:
                break
    return found


@dataclass(frozen=True)
class Kept:
    """Where sentence vectors outlast the turn: the unit-vector memo (memory, then Postgres),
    under the tenant. A rulebook's sentences come back turn after turn, and embedding them is
    nearly all of an answer's composition (about 0.45 s for the 60 sentences of six chunks
    on 2 cores); read back, they cost a lookup."""

    memo: UnitVectors
    tenant_id: UUID


async def embed(embedder: Embedder, texts: Sequence[str]) -> Matrix:
    if not texts:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    return _normalised(await asyncio.to_thread(embedder.embed, list(texts)))


async def sentence_vectors(embedder: Embedder, sentences: Sequence[Sentence],
                           kept: Kept | None = None) -> Matrix:
    """The sentences' vectors in context (``Sentence.in_context``), unit length, in order."""
    if kept is None or not sentences:
        return await embed(embedder, [s.in_context for s in sentences])
    vectors = await kept.memo.embed(embedder, kept.tenant_id,
                                    [(s.hit.document_id, s.in_context) for s in sentences])
    return _normalised(vectors)


async def query_and_sentences(embedder: Embedder, query: str, sentences: Sequence[Sentence],
                              kept: Kept | None = None) -> tuple[Matrix, Matrix]:
    """The query's vector and the sentences' (``sentence_vectors``)."""
    if kept is None:  # one batch: the model's fixed cost is paid once
        vectors = await embed(embedder, [query] + [s.in_context for s in sentences])
        return vectors[0], vectors[1:]
    return (await embed(embedder, [query]))[0], await sentence_vectors(embedder, sentences, kept)


def heading_of(sentence: Sentence) -> str | None:
    """The innermost heading the sentence stands under ("Article 35 Data protection impact
    assessment", "8.3 Customer Due Diligence requirements")."""
    path = sentence.hit.section_at(sentence.position)
    return path.split(" › ")[-1].strip() or None if path else None


async def heading_vectors(embedder: Embedder, sentences: Sequence[Sentence],
                          kept: Kept | None = None) -> Matrix:
    """Each sentence's heading vector (``heading_of``), unit length; zeros without one."""
    headings = [heading_of(s) for s in sentences]
    keys = list(dict.fromkeys((s.hit.document_id, h) for s, h in zip(sentences, headings,
                                                                      strict=True) if h))
    out = np.zeros((len(sentences), embedder.dimension), dtype=np.float32)
    if not keys:
        return out
    if kept is None:
        vectors = await embed(embedder, [h for _, h in keys])
    else:
        vectors = _normalised(await kept.memo.embed(embedder, kept.tenant_id, keys))
    at = {key: i for i, key in enumerate(keys)}
    for n, (s, h) in enumerate(zip(sentences, headings, strict=True)):
        if h:
            out[n] = vectors[at[(s.hit.document_id, h)]]
    return out


def _normalised(vectors: object) -> Matrix:
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalised: Matrix = (matrix / np.maximum(norms, 1e-9)).astype(np.float32)
    return normalised


def pointers(candidates: Sequence[Sentence]) -> list[bool]:
    """For each sentence, whether it points to a section (retrieval.pointers: "Section 4.5
    sets out the requirements regarding record-keeping") whose own text is among
    ``candidates``: the pointer then gives way to what it points to."""
    have = {(s.hit.document_id, s.hit.clause) for s in candidates}
    return [any(doc == s.hit.document_id and under(clause, section)
                for section in points_to(s.text) for doc, clause in have)
            for s in candidates]


def mmr(relevance: Sequence[float], vectors: Matrix, k: int, *,
        diversity: float = 0.3) -> list[int]:
    """Indices of ``k`` items balancing relevance against similarity to those already chosen."""
    chosen: list[int] = []
    remaining = list(range(len(relevance)))
    while remaining and len(chosen) < k:
        def gain(i: int) -> float:
            if not chosen:
                return float(relevance[i])
            redundancy = float(np.max(vectors[chosen] @ vectors[i]))
            return (1 - diversity) * float(relevance[i]) - diversity * redundancy
        best = max(remaining, key=gain)
        chosen.append(best)
        remaining.remove(best)
    return chosen


def figures(text: str) -> list[str]:
    """The quantities a statement commits to - periods, deadlines, frequencies, amounts,
    percentages ("at least six years", "fifteen days", "USD 15,000") - as the obligation
    register's fact reader finds them, verbatim."""
    return list(dict.fromkeys(" ".join(f.text.lower().split()) for f in _quantities(text)))


def differing_figures(texts: Sequence[str]) -> list[list[str]] | None:
    """Where statements set different values of a kind of figure each of them states (a
    period against a period, not a deadline to act against how long a thing is kept; a
    count limit, or who approves, against the same kind), each one's figures of those kinds,
    verbatim; None when they do not differ so. "At least six years" and "a minimum of six
    years" are one period."""
    found = [_stated(t) for t in texts]
    kinds = set.intersection(*({f.kind for f in q} for q in found)) if found else set()
    differing = {kind for kind in kinds
                 if len({frozenset(_value(f) for f in q if f.kind == kind) for q in found}) > 1}
    if not differing:
        return None
    if "start" in differing:  # "from the end of the relationship" says little without its period
        differing |= {"period", "deadline"}
    return [list({" ".join(f.text.lower().split()): " ".join(f.text.split())
                  for f in q if f.kind in differing}.values()) for q in found]


def same_figures(a: str, b: str) -> bool:
    """Whether two statements state the same figures, as values."""
    return {_value(f) for f in _stated(a)} == {_value(f) for f in _stated(b)}


def _value(fact: TypedFact) -> tuple[str, float | None, str | None, str]:
    unit = " ".join(fact.unit.lower().split()) if fact.unit else None  # "Senior Management"
    return fact.kind, fact.value, unit, fact.comparator


def _stated(text: str) -> list[TypedFact]:
    """What two statements can be told apart by: their quantities, count limits, who
    approves ("approved by the board") and when a period runs from."""
    quantities = _quantities(text)
    # A start ("from the end of the relationship") only beside a period it starts.
    timed = any(f.kind in ("period", "deadline", "frequency") for f in quantities)
    return quantities + facts.thresholds(text) + facts.approvers(text) + \
        (facts.starts(text) if timed else [])


def _quantities(text: str) -> list[TypedFact]:
    return facts.durations(text) + facts.amounts(text) + facts.percentages(text)
