"""The statements of a streamed answer that stand: each ends with its citation markers, and
what it says is in the quotes it cites (the measure of ``validate_sources``).

A small model writes a good cited statement, then runs on: it copies the evidence's headings,
an example from its prompt, or a sentence its citation does not support. Such an answer is
kept for its supported statements and the rest is dropped, as the user would otherwise read
an unsupported claim under a verified citation; only an answer with no supported statement
falls back (``LlmEngine``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from regintel.chat.llm.citing import best_sentence
from regintel.domain.chat import Citation
from regintel.domain.documents import ChunkHit
from regintel.retrieval.evidence import SUPPORT, CitationBook, content_words

_STATEMENT = re.compile(r"[^\n]*?(?:\[\d+\])+[.;]?|[^\n]*?[.;](?:\s*\[\d+\])+")
_MARKER = re.compile(r"\[(\d+)\]")
_SENTENCE = re.compile(r"(?:[^.!?\n]|\.(?=\d))+[.!?]?")  # "Rule 4.5.1 …" is one sentence


# A heading: a short line without a sentence's closing stop ("4.2 Suspicious transactions").
_HEADING_WORDS = 12
_CLOSED = re.compile(r"[.;:!?)\]]\s*$")


def _heading(quote: str) -> bool:
    return len(quote.split()) <= _HEADING_WORDS and not _CLOSED.search(quote)


def cite_uncited(answer: str, evidence: Sequence[ChunkHit], book: CitationBook) -> str:
    """``answer`` where a sentence the model left without a marker cites the evidence item
    that holds it, when one does by the support measure (the 0.5B model answered a plain
    definition question in plain sentences). The citation is verified like any other; a
    sentence no item holds is left as it is (and dropped by ``supported``)."""
    out: list[str] = []
    for line in answer.splitlines():
        pieces: list[str] = []
        last = 0
        for m in _STATEMENT.finditer(line):
            pieces += _cited(line[last:m.start()], evidence, book)
            pieces.append(m.group(0))
            last = m.end()
        pieces += _cited(line[last:], evidence, book)
        out.append("".join(pieces))
    return "\n".join(out)


def _cited(text: str, evidence: Sequence[ChunkHit], book: CitationBook) -> list[str]:
    out: list[str] = []
    for m in _SENTENCE.finditer(text):
        sentence = m.group(0)
        words = content_words(sentence)
        best = max(evidence, key=lambda h: len(words & content_words(best_sentence(h, sentence))),
                   default=None)
        if not words or best is None:
            out.append(sentence)
            continue
        quote = best_sentence(best, sentence)
        if len(words & content_words(quote)) / len(words) < SUPPORT:
            out.append(sentence)
            continue
        number = book.cite_sentence(best, quote)
        if number is None:
            out.append(sentence)
            continue
        body = sentence.rstrip()
        end = body[-1] if body[-1:] in ".!?" else ""
        out.append(f"{body[:len(body) - len(end)]} [{number}]{end}" + sentence[len(body):])
    return out


def supported(answer: str, citations: Sequence[Citation],
              shown_with: frozenset[str] = frozenset()) -> tuple[str, int]:
    """``answer`` with only its statements that their citations support (``shown_with``: the
    content words shown with the evidence, its lead-ins and openings, which no quote holds),
    the statements of a line kept on one line; and how many cited statements were dropped
    (text without a marker is dropped too)."""
    by_number = {c.n: c for c in citations}
    kept_lines: list[str] = []
    dropped = 0
    for line in answer.splitlines():
        kept: list[str] = []
        for m in _STATEMENT.finditer(line):
            statement = m.group(0).strip()
            if _holds(statement, by_number, shown_with):
                kept.append(statement)
            else:
                dropped += 1
        if kept:
            lead = line[:len(line) - len(line.lstrip())]  # a bullet's indent
            kept_lines.append(lead + " ".join(kept))
    return "\n".join(kept_lines).strip(), dropped


def _holds(statement: str, by_number: dict[int, Citation], shown_with: frozenset[str]) -> bool:
    numbers = [int(n) for n in _MARKER.findall(statement)]
    cited = [by_number[n] for n in numbers if n in by_number]
    if not cited or len(cited) < len(numbers):
        return False
    if all(_heading(c.quote) for c in cited):
        return False  # a copied heading ("Rule 4.2 Suspicious transactions [3].") says nothing
    shown = content_words(" ".join(f"{c.title} {c.clause or ''}" for c in cited))
    words = content_words(_MARKER.sub(" ", statement)) - shown - shown_with
    quoted = content_words(" ".join(c.quote for c in cited))
    return bool(words) and len(words & quoted) / len(words) >= SUPPORT
