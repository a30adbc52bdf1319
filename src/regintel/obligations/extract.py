"""Obligation sentences of a regulation's text: every sentence with a modal of obligation
(must, shall, is required to, must not, may only, should…) in any drafting, with the list
items it leads into (on their own lines, "(a)\\t…", or inline, ": (a) …; (b) …"), its
conditions and exceptions, the actor it binds (the sentence's subject) and its typed facts.
Spans index the page text (pages.rebuild_pages), so every text kept is verbatim."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from regintel.domain.coverage import (
    ConditionKind,
    ObligationCondition,
    ObligationItem,
    Strength,
    TypedFact,
)
from regintel.obligations.facts import facts_of
from regintel.sentences import sentence_spans

_MODAL = re.compile(
    r"\b(?:(?:must|shall)(?:\s+not|\s+only|\s+no\s+longer)?"
    r"|(?:is|are|be)\s+(?:not\s+)?(?:required|obliged|obligated)\s+to"
    r"|(?:is|are)\s+(?:not\s+)?(?:permitted|allowed)\s+(?:to|only)"
    r"|(?:is|are)\s+(?:strictly\s+)?prohibited"
    r"|may\s+only"
    r"|(?<!not )(?<!n't )(?:has|have)\s+to"
    r"|should(?:\s+not)?)\b", re.IGNORECASE)
# "shall mean", "shall apply", "shall enter into force": definitions and scope, not duties.
_NOT_A_DUTY = re.compile(
    r"^\s*(?:mean|means|have the (?:same )?meaning|be construed|be read|be interpreted|"
    r"apply|not apply|also apply|continue to apply|enter into force|be deemed|be binding|"
    r"be without prejudice|be repealed|be amended|be referred to|take effect|cease|"
    r"include|be treated as)\b", re.IGNORECASE)
_PROHIBITION = re.compile(r"\bnot\b|prohibited|no longer", re.IGNORECASE)
_ONLY = re.compile(r"\bonly\b", re.IGNORECASE)
# A line's own label, dropped from the body: "4.1.1.(2)\t", "(a)\t", "1. ", "- ", "• ".
_LINE_LABEL = re.compile(
    r"^[ \t]*(?:(?P<num>\d{1,3}(?:\.[0-9A-Za-z]{1,10}|\.?\(\w{1,4}\))*\.?)(?=[\t ])"
    r"|\((?P<br>\w{1,4})\)|(?P<bul>[-•*–▪])(?=[\t ]))[ \t]*")
_INLINE_ITEM = re.compile(r"(?:(?<=\s)|^)\((?P<label>[a-z]{1,4}|\d{1,2})\)\s")
_CONDITION = re.compile(
    r"\b(?P<kw>if|unless|where|when|whenever|except(?:\s+(?:where|when|if|that|for|in))?|"
    r"other than|provided\s+that|providing\s+that|subject\s+to|in\s+the\s+event\s+(?:that|of))"
    r"\b(?P<rest>[^,;:]*)", re.IGNORECASE)
_HEADING = re.compile(r"^[ \t]*#")
_DETERMINER = re.compile(r"(?:the|a|an|each|every|any|such|that|this|those|these|its|their)\s",
                         re.IGNORECASE)
_OPENING = re.compile(r"^\s*(?:if|unless|where|when|whenever|except|provided|subject to|in|for|"
                      r"after|before|once|without|notwithstanding|as|on|upon|by way of)\b",
                      re.IGNORECASE)
MAX_ACTOR_WORDS = 12
# A line at least this long that ends mid-sentence is wrapped (PDF text), not a heading.
MIN_WRAPPED = 50
_ITEM_END = re.compile(r"(?:[;,]|;\s*(?:and|or)|\b(?:and|or))\s*$")
_ENDED = re.compile(r"[.:;!?]['\"”’)]*$")
MAX_ITEMS = 40


@dataclass
class Line:
    start: int  # of the body, after the label
    end: int
    label: str | None  # "(a)", "1.", "-", a clause number; None for none
    bracketed: bool = False


@dataclass
class Found:
    """One obligation sentence found in a page's text (spans index that text)."""

    start: int
    end: int  # of the sentence, or of its last item when it leads into a list
    sentence_end: int
    modal: str
    strength: Strength
    actor: str | None
    conditions: tuple[ObligationCondition, ...]
    facts: tuple[TypedFact, ...]
    items: list[tuple[str, int, int]] = field(default_factory=list)  # (label, start, end)

    def lead_in(self, text: str) -> str | None:
        return text[self.start:self.sentence_end] if self.items else None

    def obligation_items(self, text: str) -> tuple[ObligationItem, ...]:
        return tuple(ObligationItem(label=label, text=text[s:e]) for label, s, e in self.items)


def lines_of(text: str) -> list[Line]:
    """The text's paragraphs: its lines, a line that only wraps the one before (PDF text: the
    previous line is long and ends mid-sentence, this one has no label) joined to it."""
    lines: list[Line] = []
    offset = 0
    joinable = False
    for raw in text.splitlines(keepends=True):
        body = raw.rstrip("\r\n")
        if body.strip() and not _HEADING.match(body):
            m = _LINE_LABEL.match(body)
            stripped = body.rstrip()
            if joinable and m is None and lines:
                lines[-1].end = offset + len(stripped)
                joinable = len(stripped) >= MIN_WRAPPED and not _ENDED.search(stripped)
                offset += len(raw)
                continue
            label = None
            bracketed = False
            start = offset
            if m and m.end() < len(body):
                label = m["num"] or (f"({m['br']})" if m["br"] else m["bul"])
                bracketed = m["br"] is not None or m["bul"] is not None
                start = offset + m.end()
            elif m:  # a label alone on its line ("4.1.1\t"): a heading, no body
                offset += len(raw)
                joinable = False
                continue
            lines.append(Line(start, offset + len(stripped), label, bracketed))
            joinable = len(stripped) >= MIN_WRAPPED and not _ENDED.search(stripped)
        else:
            joinable = False
        offset += len(raw)
    return lines


def strength_of(modal: str) -> Strength:
    lowered = modal.lower()
    if lowered.startswith("should"):
        return "recommendation"
    if _PROHIBITION.search(lowered):
        return "prohibition"
    if _ONLY.search(lowered):
        return "restriction"
    return "mandatory"


def find_modal(sentence: str) -> re.Match[str] | None:
    for m in _MODAL.finditer(sentence):
        # "may be required to" is a possibility, not a duty.
        if not _NOT_A_DUTY.match(sentence[m.end():]) and \
                sentence[max(0, m.start() - 4):m.start()].lower() != "may ":
            return m
    return None


def actor_of(sentence: str, modal_at: int) -> str | None:
    """The subject before the modal: after the last comma of any opening condition ("Where
    …, the controller shall"), at most MAX_ACTOR_WORDS words."""
    before = sentence[:modal_at].rstrip()
    subject = before
    cut = before.rfind(", ")
    if _OPENING.match(before):  # an opening clause ends at its last comma
        subject = before[cut + 2:] if cut >= 0 else ""
    elif cut >= 0 and _DETERMINER.match(before[cut + 2:]):  # "Having regard…, the Commission"
        subject = before[cut + 2:]
    subject = re.sub(r"^\s*(?:and|or|but|then|that|which|who)\s+", "", subject).strip()
    words = subject.split()
    if not words or len(words) > MAX_ACTOR_WORDS:
        return None
    return subject


def conditions_of(sentence: str) -> tuple[ObligationCondition, ...]:
    found = []
    for m in _CONDITION.finditer(sentence):
        kw = " ".join(m["kw"].lower().split())
        kind: ConditionKind
        if kw.startswith(("except", "other than")):
            kind = "except"
        elif kw.startswith(("provided", "providing")):
            kind = "provided"
        elif kw == "subject to":
            kind = "subject_to"
        elif kw in ("when", "whenever") or kw.startswith("in the event"):
            kind = "when"
        elif kw in ("if", "unless", "where"):
            kind = kw  # type: ignore[assignment]
        else:
            kind = "if"
        text = (m[0]).strip()
        if len(text.split()) >= 3:
            found.append(ObligationCondition(kind=kind, text=text))
    return tuple(found)


def _item_kind(label: str) -> str:
    inner = label.strip("()")
    if label in ("-", "•", "*", "–", "▪"):
        return "bullet"
    if inner.isdigit():
        return "digit"
    if re.fullmatch(r"[ivx]+", inner) and inner not in ("i", "v", "x"):
        return "roman"
    return "upper" if inner.isupper() else "letter"


def _item_label(line: Line, lead: str | None) -> str | None:
    """The line's item label: "(a)", a bullet, or the part of a clause number below the lead
    line's own ("(1)" of "9.2.2.(1)" under "9.2.2"); None when the line is no item."""
    if line.label is None:
        return None
    if line.bracketed:
        return line.label
    if lead and line.label.startswith(lead):
        rest = line.label[len(lead):].lstrip(".")
        if rest.startswith("(") and rest.endswith(")"):
            return rest
    return None


def _unlabelled_list(lines: Sequence[Line], text: str) -> list[tuple[str, Line]]:
    """A list whose items carry no label (one paragraph each, as some renderings of a
    regulation have): paragraphs while each before ended as a list item does (";", ",", "; and",
    "; or"), labelled "•" - no number is made up that the text does not print."""
    items: list[tuple[str, Line]] = []
    for line in lines:
        if line.label is not None:
            break
        items.append(("•", line))
        if not _ITEM_END.search(text[line.start:line.end]) or len(items) >= MAX_ITEMS:
            break
    return items if len(items) >= 2 else []


def _list_after(lines: Sequence[Line], index: int, text: str) -> list[tuple[str, Line]]:
    """The items of the list that opens after line ``index``: the following labelled lines of
    the first item's kind, nested ones skipped, up to a line of another kind at its level."""
    items: list[tuple[str, Line]] = []
    kind = None
    lead = lines[index].label
    following = lines[index + 1:]
    if following and following[0].label is None:
        return _unlabelled_list(following, text)
    for line in following:
        label = _item_label(line, lead)
        if label is None:
            break
        this = _item_kind(label)
        if kind is None:
            kind = this
        if this == kind:
            items.append((label, line))
        elif this == "digit" and kind != "digit":
            break  # the next numbered paragraph of the rule
        if len(items) >= MAX_ITEMS:
            break
    return items


def _inline_items(text: str, start: int, spans: Sequence[tuple[int, int]],
                  first: int) -> list[tuple[str, int, int]]:
    """Items of a list inside the same paragraph: "…: (a) …; (b) …; (c) …" — the sentences
    from ``first`` on that open with a label."""
    items = []
    for s, e in spans[first:]:
        m = _INLINE_ITEM.match(text[s:e])
        if not m:
            break
        items.append((f"({m['label']})", s + m.end(), e))
    return items


def obligations_in(text: str) -> Iterator[Found]:
    """The obligation sentences of one page's text, in order."""
    lines = lines_of(text)
    consumed_until = -1
    for index, line in enumerate(lines):
        body = text[line.start:line.end]
        spans = [(line.start + s, line.start + e) for s, e in sentence_spans(body)]
        for position, (s, e) in enumerate(spans):
            if s < consumed_until:
                continue
            sentence = text[s:e]
            modal = find_modal(sentence)
            if modal is None:
                continue
            strength = strength_of(modal[0])
            found = Found(start=s, end=e, sentence_end=e, modal=" ".join(modal[0].split()),
                          strength=strength, actor=actor_of(sentence, modal.start()),
                          conditions=conditions_of(sentence),
                          facts=facts_of(sentence, strength))
            opens_list = sentence.rstrip().endswith((":", "—", "-")) or bool(
                re.search(r"\bfollowing\s*[:;]?\s*$", sentence))
            if opens_list and position == len(spans) - 1:
                items = _list_after(lines, index, text)
                found.items = [(label, item.start, item.end) for label, item in items]
            elif ":" in sentence or position + 1 < len(spans):
                colon = sentence.rfind(":")
                inline = _INLINE_ITEM.search(sentence, colon + 1) if colon >= 0 else None
                if inline is not None:
                    # The sentence holds the first item; the next sentences the others.
                    first = (f"({inline['label']})", s + inline.end(), e)
                    found.items = [first, *_inline_items(text, s, spans, position + 1)]
                    found.sentence_end = s + inline.start()
            if found.items:
                found.end = found.items[-1][2]
                consumed_until = found.end if found.end > e and not opens_list else -1
            yield found
