"""A whole-document summary's line for each part of the document, in the document's order:
the part's central binding duty, then its other duties in one sentence; a part that states no
duty says what it sets up.

A duty is what the obligation register counts as one (``obligations.extract``): a sentence
with a modal of obligation that binds - must, shall, is required to, may only, must not; not
"should", not "shall be construed as" - outside guidance and commentary, and lifting no duty
("is not required to", "does not apply", "is exempt"). The central one is the duty closest
to what the part's sampled sentences share and to the part's own heading: "A firm must
classify each of its clients …" under "Client classification", not the chapter's opening
note on whom it does not apply to. The other duties follow in one
sentence, each quoted from its holder to the first words of what it must do. Every quote is a
verbatim slice of its chunk, and the citation book checks it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from uuid import UUID

import numpy as np
import numpy.typing as npt

from regintel.chat.offline import binding
from regintel.chat.offline.ranking import (
    Kept,
    Sentence,
    embed,
    heading_of,
    mmr,
    sentences_of,
)
from regintel.domain.chat import MAX_QUOTE_CHARS, Statement, SummaryPart
from regintel.domain.documents import ChunkHit
from regintel.obligations.extract import actor_of, find_modal, strength_of
from regintel.ports.embedder import Embedder
from regintel.retrieval import outline
from regintel.retrieval.evidence import CitationBook, clause_of, markers, normalise

# How much a duty's closeness to the part's heading counts beside its closeness to what the
# part's sentences share: the heading names the part's subject in a few words ("Client
# classification"), the centroid weighs every sampled sentence, guidance included.
HEADING_WEIGHT = 0.5
LEANS_PENALTY = 0.05  # "Such a report must …" does not stand alone as a part's line
LAST_RESORT = 10.0  # the overview's sentence, for a part with nothing else
OTHER_DUTIES = 3
EXCERPT_WORDS = 12  # of what the duty requires, after its modal…
MAX_EXCERPT_WORDS = 16  # …or up to the end of its first clause, when that is this near
MIN_DUTY_WORDS = 4  # fewer say nothing of it ("must:", "must also define what it")
MAX_HOLDER_WORDS = 12

# A heading's numbering ("Chapter II", "Part 3", "4.", "APP1"): what is left is its title.
_NUMBERING = re.compile(r"^\s*(?:(?i:part|chapter|title|section|schedule|article|annex|app"
                        r"(?:endix)?)\s*(?:\d+[A-Z]?|[IVXLC]+)|\d+[A-Z]?(?:\.\d+)*)\.?(?=\s|$)")
MIN_TITLE_LETTERS = 3
# Commentary a rulebook sets apart by name ("9.1.2.Guidance.5", a section "Guidance"): its
# "must" restates or explains a rule (the register's reading).
_COMMENTARY = re.compile(r"\b(?:guidance|explanatory notes?|commentary)\b", re.IGNORECASE)
# A sentence that lifts a duty rather than imposing one.
_EXEMPTION = re.compile(
    r"\b(?:(?:is|are|be)\s+not\s+(?:required|obliged|obligated)\s+to|need\s+not|"
    r"(?:does|do|shall|will|must)\s+not\s+apply|(?:is|are)\s+exempt(?:ed)?|"
    r"(?:is|are)\s+disapplied)\b", re.IGNORECASE)
# A sentence that leans on the one before ("However, …", "For the avoidance of doubt, …",
# "Such a report …") does not stand alone as a part's summary.
_LEANS_ON = re.compile(r"^(?:However|For the avoidance of doubt|Accordingly|Therefore|Thus|"
                       r"Furthermore|Moreover|In addition|Additionally|Nevertheless|Similarly|"
                       r"Also|This|These|That|Those|Such|It|They|"
                       r"In (?:the above|that|this|such|those|these)\b)\b")
# A part saying what it does: "This chapter sets out …", "These Rules apply to …".
_SETS_OUT = re.compile(
    r"^(?:This|These|The purpose of this) (?i:part|chapter|section|article|schedule|appendix|"
    r"annex|module|title|rules?|rulebook|regulations?)\b[^.]{0,80}?\b(?:sets? out|establish"
    r"(?:es)?|explains?|describes?|lays? down|defines?|contains?|provides?|deals? with|"
    r"covers?|appl(?:y|ies)|governs?)\b")
_NOT_SETTING_OUT = re.compile(r"\b(?:not|should|may)\b|\b(?:Rules?|Chapter|Section|Article|"
                              r"Part)\s*\u200e?\s*\d", re.IGNORECASE)
# A glossary entry ("'Employee' means …") says what a word means, not what a part requires.
_DEFINITION_LINE = re.compile(r"^\S.{0,80}?\s(?:[Mm]eans|has the meaning)\b")
# Whom a duty binds, as its excerpt opens: a named kind or a determiner, not a pronoun.
_HOLDER = re.compile(r"^(?:(?:a|an|the|each|every|any|all|no|neither|both)\s|(?!(?:It|They|He|"
                     r"She|This|That|These|Those|Such|Which|Who)\b)[A-Z])")
# Where an excerpt of a duty stops early: the end of its first clause.
_CLAUSE_END = re.compile(r"[;:]|\.(?:\s|$)|,\s(?:and|or|but|unless|if|where|which)\b|"
                         r"\s\((?:[a-z]|[ivx]+)\)\s")


@dataclass(frozen=True)
class PartLine:
    part: SummaryPart
    line: str  # the answer's bullet, each quote's marker after it
    duty: bool  # whether it states a duty (else what the part sets up)


async def _vectors(embedder: Embedder, document_id: UUID, texts: Sequence[str],
                   kept: Kept | None) -> npt.NDArray[np.float32]:
    """``texts`` as unit vectors, in order, in one call of the model: read back where a memo
    keeps them (a document's sentences are embedded when it is ingested; its part names and
    sentences not read before are kept by the first summary for the next)."""
    if kept is None or not texts:
        return await embed(embedder, texts)
    vectors = await kept.memo.embed(embedder, kept.tenant_id,
                                    [(document_id, text) for text in texts])
    matrix = np.asarray(vectors, dtype=np.float32)
    unit: npt.NDArray[np.float32] = (
        matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
    ).astype(np.float32)
    return unit


def is_duty(sentence: Sentence) -> bool:
    """Whether the sentence, read where it stands (after its list's lead-in), is a binding
    duty as the obligation register reads one."""
    text = sentence.in_context
    modal = find_modal(text)
    if modal is None or strength_of(modal[0]) == "recommendation":
        return False
    where = f"{clause_of(sentence.hit, sentence.text) or ''} {heading_of(sentence) or ''}"
    return (not _COMMENTARY.search(where) and not _EXEMPTION.search(text)
            and binding.binds(text))


async def walk(embedder: Embedder, book: CitationBook, document_id: UUID,
               hits: Sequence[ChunkHit], candidates: Sequence[Sentence],
               matrix: npt.NDArray[np.float32], walked: Sequence[outline.Part], level: int, *,
               overview: int, kept: Kept | None = None) -> list[PartLine]:
    """Each part of the document in order with its line. ``candidates`` (their vectors in
    ``matrix``) are the sentences a summary reads of each chunk: the first few; a part's
    duties are looked for in the whole of its chunks. A part with nothing to state (a
    heading alone, a glossary) is left out, and the coverage says so. The sentence the
    overview shows (``overview``) is a part's line only when the part has nothing else."""
    read = {" ".join(s.text.split()) for s in candidates}
    # An item whose list's lead-in is in the chunk before reads whole with it ("Personal
    # data shall be: … processed lawfully, fairly and in a transparent manner").
    later = [s for s in sentences_of(hits) if (s.is_statement or s.lead_in) and is_duty(s)
             and " ".join(s.text.split()) not in read]
    sentences = [*candidates, *later]
    by_part: dict[str, list[int]] = {}
    for i, sentence in enumerate(sentences):
        if sentence.is_heading or _DEFINITION_LINE.search(sentence.clean):
            continue
        heading = outline.heading_at(sentence.hit, sentence.position, level)
        if heading:
            by_part.setdefault(heading, []).append(i)
    names = [_named(p.heading, [sentences[i] for i in by_part.get(p.heading, [])], level)
             for p in walked]
    found = await _vectors(embedder, document_id, [s.in_context for s in later] + names, kept)
    matrix = np.vstack([matrix, found[:len(later)]])
    headings = found[len(later):]
    lines: list[PartLine] = []
    for n, part in enumerate(walked):
        members = by_part.get(part.heading, [])
        if not members:
            continue
        # What the part's sentences share, of those read alike in every part.
        sampled = [i for i in members if i < len(candidates)] or members
        centre = matrix[sampled].mean(axis=0)
        closeness = {i: float(matrix[i] @ centre) - LAST_RESORT * (i == overview)
                     for i in members}
        duties = [i for i in members if is_duty(sentences[i])]
        if duties:
            line = _duty_line(book, sentences, matrix, part.heading, duties, {
                i: closeness[i] + HEADING_WEIGHT * float(matrix[i] @ headings[n])
                - LEANS_PENALTY * bool(_LEANS_ON.match(sentences[i].clean)) for i in duties})
        else:
            line = _setup_line(book, sentences, part.heading, members, closeness)
        if line is not None:
            lines.append(line)
    return lines


def _named(heading: str, sentences: Sequence[Sentence], level: int) -> str:
    """What a part is about in words: its heading, or when that only numbers it ("Chapter
    II"), the headings of its sections read ("Article 5 Principles; Article 6 Lawfulness")."""
    if sum(c.isalpha() for c in _NUMBERING.sub("", heading)) >= MIN_TITLE_LETTERS:
        return heading
    sections = dict.fromkeys(h for s in sentences
                             if (h := outline.heading_at(s.hit, s.position, level + 1)))
    return "; ".join(sections) or heading


def _duty_line(book: CitationBook, candidates: Sequence[Sentence],
               matrix: npt.NDArray[np.float32], heading: str, duties: Sequence[int],
               score: dict[int, float]) -> PartLine | None:
    """The central duty, then up to OTHER_DUTIES others, as diverse as can be, in the
    document's order."""
    # A list whose duty comes after its items ("In the event of: (i) …; (ii) …, depositors
    # shall be paid …") would be cut before it: it leads only when no other duty can.
    ranked = sorted(duties, key=lambda i: (not _modal_quoted(candidates[i]), -score[i]))
    for lead in ranked:
        lead_n = book.cite_sentence(candidates[lead].hit, candidates[lead].text)
        if lead_n is not None:
            break
    else:
        return None
    lead_text = _as_cited(book, lead_n, candidates[lead])
    excerpts = {i: e for i in duties if i != lead and (e := _excerpt(candidates[i]))}
    rest = list(excerpts)
    # Diverse among themselves and apart from the lead: a duty that restates it says nothing.
    apart = [score[i] - float(matrix[i] @ matrix[lead]) for i in rest]
    chosen = mmr(apart, matrix[rest], OTHER_DUTIES, diversity=0.5)
    others: list[tuple[str, int]] = []
    for i in sorted((rest[j] for j in chosen),
                    key=lambda i: (candidates[i].hit.ordinal, candidates[i].position)):
        excerpt = excerpts[i]
        n = book.cite(candidates[i].hit, excerpt)
        if n is not None and n != lead_n:
            clause = clause_of(candidates[i].hit, excerpt)
            others.append((f"{excerpt} …" + (f" ({clause})" if clause else ""), n))
    text = lead_text
    line = f"- {heading}: {lead_text} {markers([lead_n])}"
    if others:
        said = "; ".join(o for o, _ in others)
        text += f" Its other duties: {said}."
        line += " Its other duties: " + "; ".join(
            f"{o} {markers([n])}" for o, n in others) + "."
    citations = [lead_n, *(n for _, n in others)]
    return PartLine(SummaryPart(heading=heading, statement=Statement(text=text,
                                                                      citations=citations)),
                    line, duty=True)


def _setup_line(book: CitationBook, candidates: Sequence[Sentence], heading: str,
                members: Sequence[int], closeness: dict[int, float]) -> PartLine | None:
    """What a part without a duty sets up: where it says so itself ("This chapter explains
    how the terms … are to be read"), else its most central statement that stands alone
    (the coverage names the parts so summarised: ``without_duty``)."""
    for i in sorted(members, key=lambda i: (
            not _sets_out(candidates[i].clean),
            -closeness[i] + LEANS_PENALTY * bool(_LEANS_ON.match(candidates[i].clean)))):
        n = book.cite_sentence(candidates[i].hit, candidates[i].text)
        if n is not None:
            text = _as_cited(book, n, candidates[i], duty=False)
            return PartLine(SummaryPart(heading=heading,
                                        statement=Statement(text=text, citations=[n])),
                            f"- {heading}: {text} {markers([n])}", duty=False)
    return None


def _modal_quoted(sentence: Sentence) -> bool:
    """Whether the duty's modal is in what its quote can hold: the sentence's first
    MAX_QUOTE_CHARS characters, or the lead-in shown before it."""
    modal = find_modal(sentence.text)
    return (modal is not None and modal.start() < MAX_QUOTE_CHARS) or (
        modal is None and find_modal(sentence.in_context) is not None)


def _as_cited(book: CitationBook, n: int, sentence: Sentence, *, duty: bool = True) -> str:
    """The sentence as its line shows it: whole, or - a list longer than a quote may be -
    as far as its quote goes, so that the line says no more than it cites (when the quote
    holds the duty's modal, and is of the sentence's own chunk: one quoted whole from the
    chunk before opens with words ``shown`` adds)."""
    cited = book.citations[n - 1]
    quote = cited.quote
    if cited.chunk_id != sentence.hit.chunk_id or \
            len(normalise(quote)) >= len(normalise(sentence.text)) or \
            (duty and not _modal_quoted(sentence)):
        return sentence.shown  # whole: cut, it would lose the duty it states
    cut = replace(sentence, text=quote, continues=True)
    return cut.shown if cut.shown.endswith("…") else f"{cut.shown} …"


def _sets_out(text: str) -> bool:
    """The part says what it does, of the whole of it: not what it does not apply to, what
    should be read with it, or how one provision is read ("These Rules apply in relation to
    Rule 5.1.1(b)(iii)")."""
    return bool(_SETS_OUT.match(text)) and not _NOT_SETTING_OUT.search(text)


def without_duty(lines: Sequence[PartLine]) -> str | None:
    """The parts whose line says what they set out, no duty being among the passages read,
    by their numbers where they have them: "2, 3 and 5"."""
    names = [found[0].rstrip(".").strip() if (found := _NUMBERING.match(p.part.heading))
             else p.part.heading for p in lines if not p.duty]
    if not names:
        return None
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _excerpt(sentence: Sentence) -> str | None:
    """A duty in a few words, verbatim: from its holder ("A firm", "The controller") through its
    modal to the first words of what it must do. None when it cannot be said so: the modal
    is not in the sentence's own words (an item whose lead-in holds it), the holder is a
    pronoun or a clause ("it shall contact that court"), or what is required is a list to
    come ("must:")."""
    text = sentence.clean
    modal = find_modal(text)
    if modal is None or _LEANS_ON.match(text):
        return None
    actor = actor_of(text, modal.start())
    if actor and _HOLDER.match(actor) and (at := text.rfind(actor, 0, modal.start())) >= 0:
        start = at
    elif len(text[:modal.start()].split()) <= MAX_HOLDER_WORDS and text[:1].isupper():
        start = 0  # "The need to act … shall be presumed …": from the sentence's subject
    else:
        return None
    words = list(re.finditer(r"\S+", text[modal.end():]))
    if len(words) < MIN_DUTY_WORDS:
        return None
    if _CLAUSE_END.search(text, modal.end(), modal.end() + words[MIN_DUTY_WORDS - 1].end()):
        return None  # "must: (a) …", "must, where reasonable, …": not said in a few words
    # To the end of its first clause when that comes soon enough, else after EXCERPT_WORDS.
    stop = _CLAUSE_END.search(text, modal.end() + words[MIN_DUTY_WORDS - 1].end(),
                              modal.end() + words[min(MAX_EXCERPT_WORDS, len(words)) - 1].end())
    end = stop.start() if stop is not None else \
        modal.end() + words[min(EXCERPT_WORDS, len(words)) - 1].end()
    return text[start:end].rstrip(" ,;:")
