"""The rule a guidance note applies. Rulebooks number their guidance after the rule it
explains ("8.7.1.Guidance.1. In complying with Rule 8.7.1(1) a Firm should …"),
and search often ranks the guidance, which repeats a question's words, above the rule, whose
list of measures does not. Asked what is required, an answer made of guidance alone tells a
compliance officer what the regulator suggests and leaves out what it demands, so the rule
is shown first, read from the chunks before the guidance (``retrieval.list_context``
fetches them): its opening line, and its list whole when it opens one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from regintel.chat.offline import whole_list
from regintel.domain.documents import ChunkHit
from regintel.ingestion.clauses import find_clauses, guided_rule

MIN_RULE_CHARS = 20  # an opening line shorter than this only numbers the rule ("8.7.1")


@dataclass(frozen=True)
class Rule:
    hit: ChunkHit  # the chunk holding the rule's opening line
    clause: str  # its label ("8.7.1.(1)")
    text: str  # the opening line verbatim, without its number


def find(hits: Sequence[ChunkHit], guidance: ChunkHit, clause: str | None) -> Rule | None:
    """The first line that says something of the rule that the guidance ``clause``
    ("8.7.1.Guidance.1") in the chunk ``guidance`` explains, from the chunks of its document
    at hand up to that one; None when it is no rule's guidance or no chunk holds the rule."""
    rule = guided_rule(clause)
    if rule is None:
        return None
    chunks = sorted({h.chunk_id: h for h in hits if h.document_id == guidance.document_id
                     and h.ordinal <= guidance.ordinal}.values(), key=lambda h: h.ordinal)
    for chunk in chunks:
        marks = find_clauses(chunk.text)
        for offset, label in marks:
            if _under(label, rule) and len(body := _line(chunk.text, offset)) >= MIN_RULE_CHARS:
                return Rule(chunk, label, body)
        # A corpus loaded one clause per chunk, its number only in the chunk's name (ObliQA's
        # passages): the chunk opens with the rule. (A chunk the product cut that has no
        # marker lies inside one long clause; its first sentence is then quoted, still the
        # rule's own words under its own number.)
        opening = chunk.text.lstrip()
        if not marks and chunk.clause and _under(chunk.clause, rule) and opening[:1].isupper():
            body = opening.split("\n", 1)[0].strip()
            if len(body) >= MIN_RULE_CHARS:
                return Rule(chunk, chunk.clause, body)
    return None


def its_list(rule: Rule, hits: Sequence[ChunkHit]) -> whole_list.WholeList | None:
    """The list the rule's opening line leads into, read whole from ``hits``; None when the
    line opens no list ("… it must, where appropriate:" does)."""
    if not rule.text.rstrip().endswith(":"):
        return None
    return whole_list.read(hits, rule.hit.document_id, rule.text)


def rule_chunks(best: Sequence[ChunkHit], hits: Sequence[ChunkHit]) -> list[ChunkHit]:
    """For a model's evidence: when the best hit is a rule's guidance, the chunks among
    ``hits`` that hold that rule - its opening line and the chunks its list runs on into -
    which ``best`` does not hold already, in document order; else none."""
    if not best:
        return []
    found = find(hits, best[0], best[0].clause)
    if found is None:
        return []
    chunks = {found.hit.chunk_id: found.hit}
    if (listed := its_list(found, hits)) is not None:
        chunks.update((item.hit.chunk_id, item.hit) for item in listed.items)
    shown = {h.chunk_id for h in best}
    return sorted((h for h in chunks.values() if h.chunk_id not in shown),
                  key=lambda h: h.ordinal)


def _line(text: str, offset: int) -> str:
    """The rest of the line a clause marker opens at ``offset``, without the marker."""
    end = text.find("\n", offset)
    line = text[offset:end if end >= 0 else len(text)]
    return line[len(line.split(None, 1)[0]):].strip() if line.strip() else ""


def _under(label: str, rule: str) -> bool:
    """Whether ``label`` numbers ``rule`` or one of its paragraphs, not its guidance."""
    return (label == rule or label.startswith((f"{rule}.", f"{rule}("))) and \
        "guidance" not in label.lower()
