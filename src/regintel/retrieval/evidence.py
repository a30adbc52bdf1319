"""Evidence and citations: quotes cut verbatim from stored chunks, verified before they are
shown, and numbered once per turn so ``[n]`` in an answer maps to one citation."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from uuid import UUID

from regintel.domain.chat import MAX_QUOTE_CHARS, Citation, LineRange
from regintel.domain.documents import ChunkHit
from regintel.ingestion.clauses import find_clauses
from regintel.retrieval import preceding
from regintel.sentences import sentence_spans

_SPACE = re.compile(r"\s+")
_CONTENT_WORD = re.compile(r"[a-z]{4,}")
MAX_QUOTE_SENTENCES = 3
# The share of a claim's content words its cited quotes must hold: validate_sources' measure,
# and the one a small model's streamed statements are kept by (chat.llm.statements).
SUPPORT = 0.5


def normalise(text: str) -> str:
    """Whitespace-insensitive form used to compare a quote with its source."""
    return _SPACE.sub(" ", text).strip()


def verify(quote: str, source_text: str) -> bool:
    """A quote verifies when, whitespace normalised, it is a substring of the stored text."""
    q = normalise(quote)
    return bool(q) and q in normalise(source_text)


@lru_cache(maxsize=256)
def _clause_marks(text: str) -> tuple[tuple[int, str], ...]:
    """The clause markers of a chunk's text: a chunk is quoted, then cited, often several
    times in one turn, and each reads its markers."""
    return tuple(find_clauses(text))


def _find(hit: ChunkHit, quote: str) -> re.Match[str] | None:
    """Where ``quote`` (whitespace aside) first sits in the chunk's text."""
    words = quote.split()
    return re.search(r"\s+".join(map(re.escape, words)), hit.text) if words else None


def clause_of(hit: ChunkHit, quote: str) -> str | None:
    """The clause a quote sits under: the last clause marker of the chunk at or before where
    the quote starts (a chunk that begins in 15.6.2 may quote 15.7.1); else the clause the
    chunk runs on from - unless the chunk is named after a clause that starts only after the
    quote (ingestion names a chunk by a clause starting near its top): then the last clause
    before the chunk, when the chunks before told it (``ChunkHit.clause_before``), and none
    otherwise, since none is better than a wrong one."""
    found = _find(hit, quote)
    if found is None:
        return hit.clause
    marks = _clause_marks(hit.text)
    before = [label for offset, label in marks if offset <= found.start()]
    if before:
        return before[-1]
    return hit.clause_before if hit.clause in {label for _, label in marks} else hit.clause


def where_in(hit: ChunkHit, quote: str) -> tuple[str | None, LineRange | None]:
    """The section path and (in a document without pages) the lines of ``quote`` in its
    chunk; the chunk's own when the quote cannot be placed, and none for chunks stored
    before sections and lines were recorded."""
    found = _find(hit, quote)
    if found is None:
        span = None if hit.line_start is None else (hit.line_start,
                                                    hit.line_end or hit.line_start)
        section = hit.section
    else:
        span = hit.lines_of(found.start(), found.end())
        section = hit.section_at(found.start())
    return section, None if span is None else LineRange(start=span[0], end=span[1])


def content_words(text: str) -> set[str]:
    """The words a claim and its quote are compared on (``validate_sources``); quotes for a
    model's claims are chosen on the same measure, so the check and the choice agree."""
    return set(_CONTENT_WORD.findall(text.lower()))


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


def quote_around(text: str, focus: int = 0, *, max_chars: int = MAX_QUOTE_CHARS) -> str:
    """Up to three whole sentences of ``text`` starting with the one holding index ``focus``,
    within ``max_chars`` and within one clause (a sentence that starts the next clause is
    not added: the citation names one clause); a single over-long sentence is cut at a word
    boundary. The result is always a verbatim slice of ``text``."""
    spans = sentence_spans(text)
    if not spans:
        return ""
    first = next((i for i, (a, b) in enumerate(spans) if a <= focus < b or focus < a),
                 len(spans) - 1)
    start, end = spans[first]
    clauses = [offset for offset, _ in _clause_marks(text) if offset >= end]
    for _, b in spans[first + 1:first + MAX_QUOTE_SENTENCES]:
        if b - start > max_chars or any(offset < b for offset in clauses):
            break
        end = b
    if end - start > max_chars:
        cut = text.rfind(" ", start, start + max_chars)
        end = cut if cut > start else start + max_chars
    return text[start:end].rstrip()


def quote_sentence(text: str, sentence: str) -> str:
    """The quote for one chosen sentence of ``text`` (plus its neighbours when they fit)."""
    at = text.find(sentence)
    return quote_around(text, max(at, 0), max_chars=MAX_QUOTE_CHARS)


def whole_in_earlier(hit: ChunkHit, sentence: str) -> tuple[ChunkHit, str] | None:
    """The chunk before ``hit`` and the quote of ``sentence`` from it, when ``sentence`` is
    the one ``hit`` starts inside (retrieval.preceding.opening) and the chunk before holds
    it whole, from its opening words to its end (and no further: the chunk before ends
    inside the next sentence)."""
    earlier, at = hit.opened_in, hit.text.find(sentence)
    if earlier is None or not hit.opening or at < 0 or hit.text[:at].strip():
        return None
    start = preceding.opening_start(earlier.text, hit.text)
    if start is None:
        return None
    # The chunks overlap verbatim: ``hit``'s text from its first word is found in the
    # chunk before at start_in.
    shift = preceding.start_in(earlier.text, hit.text) - (len(hit.text) - len(hit.text.lstrip()))
    end = shift + at + len(sentence)
    if end > len(earlier.text):
        return None
    return earlier, quote_around(earlier.text[:end], start, max_chars=MAX_QUOTE_CHARS)


class CitationBook:
    """Numbers citations in the order claims use them; the same chunk and quote reuse a number.
    ``source_texts`` keeps each chunk's stored text so every quote is checked before it counts.
    """

    def __init__(self) -> None:
        self._citations: list[Citation] = []
        self._keys: dict[tuple[UUID | None, str], int] = {}
        self.dropped = 0
        self.verified = 0

    def cite(self, hit: ChunkHit, quote: str) -> int | None:
        """The citation number for ``quote`` from ``hit``, or None when the quote does not
        verify against the chunk (it is then dropped and counted)."""
        quote = quote.strip()
        if len(quote) > MAX_QUOTE_CHARS or not verify(quote, hit.text):
            self.dropped += 1
            return None
        key = (hit.chunk_id, normalise(quote))
        if key in self._keys:
            return self._keys[key]
        self.verified += 1
        n = len(self._citations) + 1
        section, lines = where_in(hit, quote)
        self._citations.append(Citation(
            n=n, document_id=hit.document_id, chunk_id=hit.chunk_id, title=hit.document_title,
            version=hit.document_version, page=hit.page_start if hit.paged else None,
            clause=clause_of(hit, quote), section=section, lines=lines, quote=quote))
        self._keys[key] = n
        return n

    def checkpoint(self) -> int:
        """A mark to ``rollback`` to: the citations made after it are taken back."""
        return len(self._citations)

    def rollback(self, mark: int) -> None:
        """Forget citations after ``mark`` (their answer was discarded); drops stay counted."""
        for c in self._citations[mark:]:
            self._keys = {k: n for k, n in self._keys.items() if n != c.n}
        self.verified -= len(self._citations[mark:])
        del self._citations[mark:]

    def keep_shown(self, shown: Mapping[int, int], mark: int) -> None:
        """Of the citations after ``mark``, keep those an answer shows, under the numbers it
        shows them by (``shown``: old number -> new); the others cited only statements the
        answer dropped."""
        kept = [c.model_copy(update={"n": shown[c.n]}) for c in self._citations[mark:]
                if c.n in shown]
        self.verified -= len(self._citations) - mark - len(kept)
        self._citations[mark:] = sorted(kept, key=lambda c: c.n)
        self._keys = {k: (n if n <= mark else shown[n]) for k, n in self._keys.items()
                      if n <= mark or n in shown}

    def cite_sentence(self, hit: ChunkHit, sentence: str) -> int | None:
        """The citation of ``sentence`` of ``hit``: quoted whole from the chunk before when
        ``hit`` starts inside it and that chunk holds it all ("A Reporting Firm should be
        aware …", not "Firm should be aware …")."""
        whole = whole_in_earlier(hit, sentence)
        if whole is not None:
            return self.cite(*whole)
        return self.cite(hit, quote_sentence(hit.text, sentence))

    def add_web(self, title: str, url: str, snippet: str) -> int:
        n = len(self._citations) + 1
        self._citations.append(Citation(n=n, source_type="web", title=title, url=url,
                                        quote=quote_around(snippet)))
        return n

    @property
    def citations(self) -> list[Citation]:
        return list(self._citations)


def markers(numbers: Sequence[int | None]) -> str:
    """`` [1][3]`` for the numbers that exist, in order, without repeats."""
    seen: list[int] = []
    for n in numbers:
        if n is not None and n not in seen:
            seen.append(n)
    return "".join(f"[{n}]" for n in seen)
