"""A rule's list read whole. An answer that shows some items of a list ("4.5.1 … maintain
the following records:" with "(e)" and "(g)") misleads: the reader takes them for the
records to keep. Retrieval returns the chunks closest to the question, and a list runs over
two or three of them, so the items are read from the chunk that holds the lead-in and the
chunks after it (``retrieval.list_context`` fetches those the search did not return).

Lines are what delimit items: rulebooks put each item on a line of its own ("(a)\\t…",
"(ii)\\t…"); a line in lower case goes on with the item before it (the words that close a
list, "for at least six years from …"); any other line - the next clause, a sentence after
the list - ends it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from regintel.chat.offline.ranking import Sentence
from regintel.domain.documents import ChunkHit
from regintel.ingestion.clauses import find_clauses
from regintel.retrieval.evidence import normalise
from regintel.retrieval.list_context import ITEM_MARK
from regintel.retrieval.preceding import start_in

MAX_ITEMS = 15  # a longer list is shown in part, and says so
MIN_HELD_CHARS = 20  # of a sentence, to be taken for an item of a list
_ROMAN = re.compile(r"^(?:i{1,3}|iv|vi{0,3}|ix|x)$")


@dataclass(frozen=True)
class Item:
    hit: ChunkHit  # the chunk the item is quoted from
    text: str  # verbatim from the chunk, marker first
    depth: int  # 0 for "(b) … including:", 1 for its "(i)"


@dataclass(frozen=True)
class WholeList:
    hit: ChunkHit  # the chunk that holds the lead-in
    lead_in: str  # verbatim from that chunk, without the clause number
    items: list[Item]
    complete: bool  # False when the chunks read end before the list does


def read(hits: Sequence[ChunkHit], document_id: UUID, lead_in: str) -> WholeList | None:
    """The list that ``lead_in`` opens in ``document_id``, from the chunk holding the
    lead-in on through consecutive chunks; None when no chunk at hand holds the lead-in."""
    chunks = sorted({h.chunk_id: h for h in hits if h.document_id == document_id}.values(),
                    key=lambda h: h.ordinal)
    wanted = normalise(lead_in)
    for k, first in enumerate(chunks):
        found = _line_ending_with(first.text, wanted)
        if found is None:
            continue
        lead_start, lead_end = found
        items: list[Item] = []
        scan = _Scan()
        chunk, start = first, lead_end
        while True:
            ended = scan.read(chunk, start, items)
            if ended or len(items) > MAX_ITEMS:
                break
            following = chunks[k + 1] if k + 1 < len(chunks) else None
            if following is None or following.ordinal != chunk.ordinal + 1:
                break
            if not _goes_on(chunk.text, following.text):
                ended = True  # the list closed where the chunk did
                break
            k, chunk, start = k + 1, following, 0
        return WholeList(first, first.text[lead_start:lead_end].strip(), items[:MAX_ITEMS],
                         complete=ended and len(items) <= MAX_ITEMS)
    return None


def _goes_on(text: str, following: str) -> bool:
    """Whether the chunk after ``text`` carries on its list: it repeats the end of ``text``
    (chunks of one page overlap), or it opens with an item or the lower-case words that
    close a list (a list carried over to the next page). A chunk opening with anything
    else starts after the list (one passage per chunk, as a benchmark corpus is loaded)."""
    if start_in(text, following) >= 0:
        return True
    first = following.lstrip().split("\n", 1)[0]
    return bool(ITEM_MARK.match(first)) or first[:1].islower()


def holds(whole: WholeList, sentence: Sentence) -> bool:
    """Whether ``sentence`` is one of the list's items as the answer would show it alone
    (an item read as a sentence of its own, past the lead-in's reach in its chunk)."""
    if sentence.hit.document_id != whole.hit.document_id:
        return False
    said = normalise(sentence.clean)
    return len(said) >= MIN_HELD_CHARS and any(
        _parts(item.text)[1].startswith(said[:MIN_HELD_CHARS * 2]) for item in whole.items)


def _line_ending_with(text: str, wanted: str) -> tuple[int, int] | None:
    """Where the line that ends with ``wanted`` (whitespace aside) has its lead-in, from the
    first of its words to the end of the line."""
    at = 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip()
        if normalise(stripped).endswith(wanted):
            words = wanted.split()
            first = re.search(r"\s+".join(map(re.escape, words)) + r"\s*$", stripped)
            if first is not None:
                return at + first.start(), at + len(stripped)
        at += len(line)
    return None


class _Scan:
    """Items line by line, across chunks that overlap (an item read twice is kept once, in
    its longer reading: the chunk that cut it short holds less of it)."""

    def __init__(self) -> None:
        self.parent_open = False  # the last top-level item ends in ":" (its own list follows)
        self.last_letter = ""

    def read(self, hit: ChunkHit, start: int, items: list[Item]) -> bool:
        """Reads ``hit.text`` from ``start``; True when the list ended in it. A chunk read
        on from the one before (``start`` 0) may open with the tail of an item that chunk
        held: its lines before the first item are skipped."""
        text = hit.text
        clauses = {offset for offset, _ in find_clauses(text)}
        current: tuple[int, int, int] | None = None  # start, end, depth
        at = start
        for line in text[start:].splitlines(keepends=True):
            stripped = line.strip()
            line_start = at + len(line) - len(line.lstrip())
            at += len(line)
            if not stripped:
                continue
            if line_start in clauses:  # the next clause
                self._keep(hit, current, items)
                return True
            mark = ITEM_MARK.match(stripped)
            if mark is not None:
                self._keep(hit, current, items)
                current = (line_start, at, self._depth(mark[1], stripped))
            elif current is None and start == 0:
                continue
            elif current is not None and (stripped[0].islower() or stripped in {"and", "or"}):
                current = (current[0], at, current[2])  # an item's tail, or the list's close
            else:  # a sentence after the list
                self._keep(hit, current, items)
                return True
        self._keep(hit, current, items)
        return False

    def _depth(self, marker: str, line: str) -> int:
        nested = self.parent_open and bool(_ROMAN.match(marker)) and \
            marker != _next_letter(self.last_letter)
        if not nested:
            self.last_letter = marker
            self.parent_open = line.rstrip().endswith(":")
        return 1 if nested else 0

    @staticmethod
    def _keep(hit: ChunkHit, span: tuple[int, int, int] | None, items: list[Item]) -> None:
        """Adds the item at ``span``, or lengthens its earlier reading: two readings of one
        item have the same marker and one begins the other ("(f) the documents in Rule
        4.6.1;" where a chunk ends, "… 4.6.1; and" in the next)."""
        if span is None:
            return
        text = hit.text[span[0]:span[1]].rstrip()
        mark, body = _parts(text)
        for k, held in enumerate(items):
            held_mark, held_body = _parts(held.text)
            if held_mark == mark and (body.startswith(held_body) or held_body.startswith(body)):
                if len(body) > len(held_body):
                    items[k] = Item(hit, text, held.depth)
                return
        items.append(Item(hit, text, span[2]))


def _parts(text: str) -> tuple[str, str]:
    mark = ITEM_MARK.match(text)
    return (mark[0], normalise(text[mark.end():])) if mark else ("", normalise(text))


def _next_letter(letter: str) -> str:
    return chr(ord(letter) + 1) if len(letter) == 1 and letter.isalpha() else ""
