"""Citations for an answer the model streams.

The model writes prose and marks each statement with the number of the evidence it comes from
(``[2]``). It does not quote: the quote is chosen here, as the sentence of that evidence which
shares most content words with the statement, cut verbatim from the stored chunk and verified
by the citation book like every other quote. So a model can cite the wrong passage, but it can
never put words into a regulation's mouth.

Markers are renumbered to citation numbers while the text streams: a delta ending in what may
be the start of a marker (``[1``) is held back until the marker is complete.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from regintel.domain.documents import ChunkHit
from regintel.retrieval.evidence import CitationBook, content_words, sentences

_MARKER = re.compile(r"\[(\d{1,2}(?:\s*,\s*\d{1,2})*)\]")
_OPEN = re.compile(r"\[[\d,\s]{0,12}$")  # a marker that may still be arriving
_SENTENCE_END = re.compile(r"[.;:!?\n]\s")


def best_sentence(hit: ChunkHit, claim: str) -> str:
    """The sentence of ``hit`` that shares most content words with ``claim`` (the first one
    on a tie, as regulations state the rule before its detail)."""
    wanted = content_words(claim)
    candidates = sentences(hit.text) or [hit.text]
    return max(candidates, key=lambda s: len(wanted & content_words(s)))


def claim_before(text: str) -> str:
    """The statement a marker at the end of ``text`` belongs to: its last sentence (or the
    one before when the marker follows a full stop)."""
    body = text.rstrip(" .;:,")
    ends = [m.end() for m in _SENTENCE_END.finditer(body)]
    return body[ends[-1]:] if ends else body[-400:]


class StreamedCitations:
    def __init__(self, evidence: Sequence[ChunkHit], book: CitationBook) -> None:
        self._evidence = list(evidence)
        self._book = book
        self._pending = ""
        self._written = ""  # the model's text so far, markers as the model wrote them
        self.cited: list[int] = []

    def feed(self, delta: str) -> str:
        """The part of the text so far that can be shown, with markers renumbered."""
        text = self._pending + delta
        held = _OPEN.search(text)
        self._pending = text[held.start():] if held else ""
        return self._rewrite(text[:held.start()] if held else text)

    def close(self) -> str:
        rest, self._pending = self._pending, ""
        return self._rewrite(rest)

    def _rewrite(self, text: str) -> str:
        out: list[str] = []
        last = 0
        for m in _MARKER.finditer(text):
            out.append(text[last:m.start()])
            claim = claim_before(self._written + text[:m.start()])
            numbers = [self._cite(int(n), claim) for n in m.group(1).split(",")]
            out.append("".join(f"[{n}]" for n in dict.fromkeys(numbers) if n is not None))
            last = m.end()
        out.append(text[last:])
        self._written += text
        return "".join(out)

    def _cite(self, n: int, claim: str) -> int | None:
        if not 1 <= n <= len(self._evidence):
            self._book.dropped += 1  # a number for evidence the model was never shown
            return None
        hit = self._evidence[n - 1]
        number = self._book.cite_sentence(hit, best_sentence(hit, claim))
        if number is not None and number not in self.cited:
            self.cited.append(number)
        return number
