"""A model's answer released to the user a statement at a time, each once it is checked.

A model streams words before anything can be said of them: under "Checking the quotes…" a
small model once streamed a minute of invented law (its prompt's worked example), then the
turn replaced it. So nothing goes out as it is generated. The text (markers already renumbered
to verified citations, ``citing``) is cut where a statement ends — after its markers, or at a
line's end — and each statement is checked before it is released:

- a statement that repeats a phrase of the prompt's worked example is dropped (``leaked``);
- on a small model's window, a sentence without a marker is cited to the evidence that holds
  it, and only statements their citations support stand (``statements``);
- text without a verified marker (a heading, a statement whose marker named evidence it was
  never shown) waits for the next cited statement, and at the end for the answer's own checks.

What is released is the answer: the engine returns exactly what the user saw arrive.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from regintel.chat.llm import prompts as p

Check = Callable[[str], str]  # a statement -> what of it stands ("" when nothing does)

# A statement ends after its markers (with the full stop after them) once the text goes on;
# a marker run still arriving ("[1]" then "[2]") is not cut.
_END = re.compile(r"(?:\[\d+\])+[.;]?(?=[^\S\n]+[^\s\[])|[.;](?:\s*\[\d+\])+(?=[^\S\n]+[^\s\[])")
_STATEMENT_END = re.compile(r"(?:\[\d+\])+[.;]?|[.;](?:\s*\[\d+\])+")
_CITED = re.compile(r"\[(\d+)\]")
_WORD = re.compile(r"[a-z0-9]+")
PHRASE_WORDS = 4  # a worked example's phrase: four words in a row


class VerifiedStatements:
    """Feed it the renumbered text as it streams; it returns what may be shown. ``close``
    returns the rest of a finished answer (``whole_only``: an answer cut at the token limit,
    whose last statement is unfinished, keeps its finished ones)."""

    def __init__(self, check: Check, *, first: int = 0) -> None:
        self._check = check
        # Citation numbers above ``first`` (the book's mark when the answer began) as shown:
        # numbered in the order the released text first uses them, so a dropped statement's
        # citation leaves no gap ("[1] … [3]"); ``CitationBook.keep_shown`` applies it.
        self.first = first
        self.shown: dict[int, int] = {}
        self._buffer = ""
        self._held = ""       # checked text without a verified marker, waiting
        self._at_line_start = True
        self._line_open = False  # the current output line has text
        self.text = ""        # everything released so far

    def feed(self, text: str) -> str:
        self._buffer += text
        out: list[str] = []
        while (cut := self._cut()) is not None:
            segment, self._buffer = self._buffer[:cut], self._buffer[cut:]
            out.append(self._statement(segment))
        return self._released("".join(out))

    def close(self, *, whole_only: bool = False) -> str:
        """The held text and the last statement; call once the answer's checks passed."""
        rest, self._buffer = self._buffer, ""
        if whole_only:  # up to its last cited statement: held text after it goes too
            ends = [m.end() for m in _STATEMENT_END.finditer(rest)]
            rest = rest[:ends[-1]] if ends else ""
        out = self._statement(rest) if rest.strip() else ""
        if not whole_only:
            out += self._held
        self._held = ""
        return self._released(out)

    def _cut(self) -> int | None:
        newline = self._buffer.find("\n")
        end = _END.search(self._buffer)
        cuts = [c for c in (newline + 1 if newline >= 0 else None,
                            end.end() if end else None) if c is not None]
        return min(cuts) if cuts else None

    def _statement(self, segment: str) -> str:
        """The checked statement, joined to the answer as ``statements.supported`` joins a
        line's statements: one space between them, a line break between lines."""
        ends_line = segment.endswith("\n")
        body = segment.rstrip("\n")
        lead = body[:len(body) - len(body.lstrip())] if self._at_line_start else ""
        kept = self._check(body).strip() if body.strip() else ""
        self._at_line_start = ends_line
        out = ""
        if kept:
            if self._line_open:
                out = " " + kept
            else:
                out = ("\n" if self.text or self._held else "") + lead + kept
                self._line_open = True
        if ends_line:
            self._line_open = False
        if out and not _CITED.search(out):
            self._held += out  # released with the next cited statement, or at the end
            return ""
        out, self._held = self._held + out, ""
        return out

    def _released(self, out: str) -> str:
        out = _CITED.sub(self._shown_number, out)
        self.text += out
        return out

    def _shown_number(self, m: re.Match[str]) -> str:
        n = int(m.group(1))
        if n <= self.first:
            return m.group(0)
        return f"[{self.shown.setdefault(n, self.first + len(self.shown) + 1)}]"


def phrases(*texts: str) -> frozenset[tuple[str, ...]]:
    """Every run of ``PHRASE_WORDS`` words of ``texts`` (lower case, markers and punctuation
    ignored)."""
    out: set[tuple[str, ...]] = set()
    for text in texts:
        words = _WORD.findall(_CITED.sub(" ", text.lower()))
        out.update(tuple(words[i:i + PHRASE_WORDS])
                   for i in range(len(words) - PHRASE_WORDS + 1))
    return frozenset(out)


def leaked(text: str, example: frozenset[tuple[str, ...]],
           evidence: frozenset[tuple[str, ...]] = frozenset()) -> list[str]:
    """The phrases of a worked ``example`` that ``text`` repeats, those the turn's
    ``evidence`` also says excepted (a regulation may say "within 21 days of the" too)."""
    return [" ".join(p) for p in sorted(phrases(text) & example - evidence)]


# The worked example a small model is shown (``prompts.EXAMPLE_*``): none of its phrases may
# reach an answer.
EXAMPLE_PHRASES = phrases(p.EXAMPLE_QUESTION, p.EXAMPLE_EVIDENCE, p.EXAMPLE_ANSWER)
