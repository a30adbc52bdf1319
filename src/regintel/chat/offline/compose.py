"""Offline answers to questions and summaries: extractive, every statement a sentence of the
evidence with its verified quote."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from uuid import UUID

import numpy as np
import numpy.typing as npt

from regintel.chat.engine import Composed
from regintel.chat.offline import answer_kind, binding, guided_rule, part_lines, whole_list
from regintel.chat.offline.ranking import (
    Kept,
    Sentence,
    embed,
    heading_vectors,
    mmr,
    pointers,
    query_and_sentences,
    sentence_vectors,
    sentences_of,
)
from regintel.domain.chat import (
    MAX_QUOTE_CHARS,
    Statement,
    SummaryPart,
    SummaryResult,
    SummarySection,
)
from regintel.domain.documents import ChunkHit, DocType, Document, titled
from regintel.ports.embedder import Embedder
from regintel.retrieval import outline
from regintel.retrieval.evidence import CitationBook, clause_of, markers, normalise
from regintel.retrieval.list_context import EVIDENCE_CHUNKS, retrieved

CAUTION = ("Medium confidence: the retrieved provisions only partly match the question. "
           "Verification against the source documents is recommended.")
INQUIRY_POINTS = 4
# A point is shown when its relevance is within POINT_MARGIN of the best point's. Checked on
# ObliQA fold 0 with the chunk weight below (500 questions; gold share of citations / answers
# citing gold): 0.15 gives 0.684 / 0.864, 0.2 gives 0.665 / 0.876, 0.3 gives 0.626 / 0.884.
# 0.2 stays: a narrower margin leaves more answers without a gold passage.
POINT_MARGIN = 0.2
# A sentence's relevance: its similarity to the question, and its chunk's calibrated relevance
# with this weight. Chosen on ObliQA fold 0 (500 questions, `regintel bench answers`), among
# 0.1 / 0.25 / 0.5 / 0.6 / 0.75, as the highest share of gold citations that keeps the share
# of answers citing a gold passage: 0.25 gave 0.517 / 0.878, 0.5 gives 0.665 / 0.876 (0.6:
# 0.695 / 0.864; 0.75: 0.730 / 0.858). Held-out fold 1 (first 700 questions, measured once):
# 0.453 / 0.841 at 0.25, 0.572 / 0.817 at 0.5 - fewer passages cited, more of them gold, a
# few more answers without one. The sentence alone favours guidance that repeats the
# question's words over the passage retrieval ranks first.
CHUNK_WEIGHT = 0.5
# How far below the best point a regulation's sentence may be and still lead an answer that
# only the firm's own documents would otherwise give (``_with_a_regulation``).
REGULATION_MARGIN = 0.3
# A sentence stating the kind of fact the question asks for ("how often" and "annually") is
# this much closer to it: about the gap between a near and a loose match of a question.
KIND_BONUS = 0.08
HEADING_WEIGHT = 0.2
HEADING_PENALTY = 0.3  # a heading (or a pointer to a section) is shown only when nothing
# under it (or of the section) was retrieved
# A question about what is required ("What must a firm do if it cannot complete its checks?") is
# answered with the rules first and the guidance after them: the points chosen are the same,
# only their order. A bonus that also chose binding sentences over closer guidance was
# measured and rejected: on ObliQA fold 1 (400 questions that ask what is required, ten
# hits each, chunk weight 0.25), the share of cited passages that are gold fell from 0.423
# to 0.393. So was adding the closest binding sentence to an answer made of guidance alone,
# when about as close to the question (within 0, 0.02 or 0.05 of the guidance chosen): on
# ObliQA fold 0 (400 questions, 165 asking what is required) the answers citing a gold
# passage stayed at 0.879 and the gold share of the passages cited fell from 0.579 to 0.566,
# 0.559 and 0.545. What is added instead is the rule the guidance itself says it explains
# (``guided_rule``: "8.7.1.Guidance.1" explains Rule 8.7.1), never another. On ObliQA fold 0
# (400 questions, 2026-11-23), of the 165 asking what is required: passages per answer 1.53
# to 1.62 (about 15 answers given a rule), answers citing a gold passage 0.873 before and
# after, gold share of the passages cited 0.575 to 0.543 - ObliQA files such a question under
# the guidance it was written from, while a compliance officer asking what is required
# needs the rule.
_ASKS_REQUIREMENTS = re.compile(
    r"\b(?:requirements?|required|requires?|obligations?|obliged|duty|duties|must|shall|"
    r"mandatory|need to|needs to|have to|has to|"
    # What a rule lets or forbids, and what it makes happen, are asked of the rule too.
    r"allowed|permitted|prohibited|forbidden|(?:can|may) (?:we|I|a|an|the)|what happens)\b",
    re.I)
SUMMARY_OBLIGATIONS = 6
MAX_SUMMARY_SENTENCES = 160
MAX_OUTLINE_SENTENCES = 240  # 60 chunks of four


def cite(book: CitationBook, sentence: Sentence, *, located: bool = False) -> Statement | None:
    """The sentence as a statement with its verified citation; ``located`` prefixes where it
    comes from ("Market Rules, 14.2.1: …") for answers that mix documents."""
    n = book.cite_sentence(sentence.hit, sentence.text)
    if n is None:
        return None
    text = sentence.shown
    if located:
        title, clause = sentence.hit.document_title, book.citations[n - 1].clause
        where = f"{title}, {clause}" if clause and clause != title else title
        text = f"{where}: {text}"
    return Statement(text=text, citations=[n])


def under_headings(candidates: Sequence[Sentence],
                   similarity: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """A heading says what the clauses under it are about, in fewer words than they do
    ("8.7 Failure to conduct or complete Customer Due Diligence" over "8.7.1 Where … a
    Firm is unable to conduct or complete the requisite checks … it must …: (a) …"):
    the first sentence after a heading in the same chunk is taken to be at least as close to
    the question as the heading. The heading itself answers nothing (HEADING_PENALTY)."""
    inherited = similarity.copy()
    for i, sentence in enumerate(candidates[:-1]):
        following = candidates[i + 1]
        if sentence.is_heading and following.hit is sentence.hit and not following.is_heading:
            inherited[i + 1] = max(inherited[i + 1], similarity[i])
    return inherited


# A document saying what it is for: "This Policy sets out how Kestrel prevents …", "These
# Rules apply to …". The best overview there is, when the summary's sample holds one.
_SELF = re.compile(
    r"^(?:This|These|The purpose of this) (?:Policy|Policies|Rules?|Rulebook|Manual|"
    r"Procedures?|Standards?|Framework|Guidance|Code|Regulations?|Module|Chapter|Document)\b"
    r"[^.]{0,80}?\b(?:sets? out|describes?|establish(?:es)?|explains?|defines?|is to|aims?|"
    r"applies|apply|covers?|governs?)\b")
_NARROW = re.compile(r"\b(?:Rules?|Chapter|Section|Article)\s*\u200e?\s*\d")  # of one provision
MIN_SELF_CHARS = 80


def _self_description(candidates: Sequence[Sentence]) -> int | None:
    """The first sentence of the sample in which the document says what it does - of the
    whole, not of one provision ("These Rules apply in relation to Rule 5.1.1(b)(iii).")."""
    found = [i for i, s in enumerate(candidates) if _SELF.search(s.clean)
             and len(s.clean) >= MIN_SELF_CHARS and not _NARROW.search(s.clean)]
    return min(found, key=lambda i: (candidates[i].hit.ordinal, candidates[i].position),
               default=None)


def key_duties(candidates: Sequence[Sentence], *, exclude: int) -> list[int]:
    """The sentences a summary's key obligations are chosen from: the binding duties of the
    person the document mostly speaks to ("A Firm must …"), not a note on what a
    chapter contains or a duty of the Registrar of Companies; every obligation sentence when
    the document names no one ("The Firm must …") or too few such duties were sampled."""
    obligations = [i for i, s in enumerate(candidates) if s.is_obligation and i != exclude]
    named = {i: binding.kinds_named(candidates[i].clean) for i in obligations}
    usual = Counter(kind for kinds in named.values() for kind in kinds).most_common(1)
    duties = [i for i in obligations if binding.binds(candidates[i].clean)
              and usual and usual[0][0] in named[i]]
    return duties if len(duties) >= SUMMARY_OBLIGATIONS else obligations


# A list item shown after its lead-in in the chunk itself: "…records: (a) a copy of …".
_LEAD_IN_AND_ITEM = re.compile(r"^(.{12,400}?:) (\(?[a-z0-9ivx]{1,4}[.)] .*)$")
_ITEM_MARK = re.compile(r"^\s*(\(?[a-z0-9ivx]{1,4}[.)])\s")


def asks_requirements(question: str) -> bool:
    """Whether a question asks what is required ("What must …", "… requirements for …")."""
    return bool(_ASKS_REQUIREMENTS.search(question))


def _in_list(sentence: Sentence) -> tuple[str, str] | None:
    """(lead-in, item with its marker) for a list item shown with its list's lead-in."""
    shown = sentence.shown
    if sentence.lead_in:
        item = shown.removeprefix(f"{sentence.lead_in} … ")
        mark = _ITEM_MARK.match(sentence.text)
        return sentence.lead_in, f"{mark[1]} {item}" if mark else item
    found = _LEAD_IN_AND_ITEM.match(shown)
    return (found[1], found[2]) if found else None


def listed(sentences: Sequence[Sentence], book: CitationBook,
           hits: Sequence[ChunkHit] = ()) -> list[str]:
    """Answer bullets, one per sentence cited; items of one list are shown once under their
    lead-in, in the list's order ("4.5.1: … maintain the following records:" then "(a) …",
    "(e) …"), rather than each repeating it. A list shown in part - two of its items
    chosen, or its lead-in with the first items and more to come - is shown whole when
    ``hits`` hold it (``whole_list``): its lead-in cites its own quote, and so does each
    item. Otherwise the lead-in line cites nothing: it is context from the rule; each item
    cites its own quote, numbered in the order shown."""
    # Each sentence with its list (document, lead-in) and the item shown under it, if any.
    read: list[tuple[Sentence, tuple[str, str] | None, str]] = []
    for sentence in sentences:
        parts = _in_list(sentence)
        read.append((sentence, (str(sentence.hit.document_id), parts[0]), parts[1]) if parts
                    else (sentence, None, ""))
    sizes = Counter(k for _, k, _ in read if k is not None)
    wholes = {k: found for k in sizes
              if (sizes[k] >= 2 or any(key == k and s.lead_in is None and
                                       s.shown.endswith(" …") for s, key, _ in read))
              and (found := whole_list.read(hits, UUID(k[0]), k[1])) is not None
              and len(found.items) >= 2}
    ordered: list[tuple[Sentence, tuple[str, str] | None, str]] = []
    for entry in read:
        k = entry[1]
        if k is None or sizes[k] < 2:
            ordered.append(entry)
        elif entry not in ordered:
            ordered += sorted((e for e in read if e[1] == k),
                              key=lambda e: (e[0].hit.ordinal, e[0].position))
    # Cited in the order shown, so the numbers run in order; a whole list in one block.
    blocks: list[list[str] | tuple[Sentence, tuple[str, str] | None, str, Statement]] = []
    done: set[tuple[str, str]] = set()
    for sentence, k, item in ordered:
        # A sentence of a list shown whole: one of its items, or the lead-in with the first.
        owner = k if k in wholes else next(
            (key for key, whole in wholes.items() if whole_list.holds(whole, sentence)), None)
        if owner is not None:
            if owner not in done:
                blocks.append(_whole_lines(wholes[owner], sentence.hit.document_title, book))
                done.add(owner)
        elif k is None or k not in done:
            statement = cite(book, sentence, located=True)
            if statement is not None:
                blocks.append((sentence, k, item, statement))
    together = Counter(b[1] for b in blocks if isinstance(b, tuple) and b[1] is not None)
    lines: list[str] = []
    heading: tuple[str, str] | None = None
    for block in blocks:
        if isinstance(block, list):
            lines += block
            heading = None
            continue
        sentence, k, item, statement = block
        if k is None or together[k] < 2:
            lines.append(bullet(statement))
            continue
        if k != heading:
            heading = k
            where = statement.text.removesuffix(sentence.shown)  # "Market Rules, 4.5.1: "
            lines.append(f"- {where}{k[1]}")
        lines.append(f"  - {item} {markers(statement.citations)}".rstrip())
    return lines


def _whole_lines(whole: whole_list.WholeList, title: str, book: CitationBook) -> list[str]:
    """A list under its lead-in, every item cited; an item whose quote does not verify is
    left out, as any uncited statement is."""
    clause = clause_of(whole.hit, whole.lead_in)
    lines = [_cited_line(title, clause, whole.hit, whole.lead_in, book)[0]]
    for item in whole.items:
        n = book.cite(item.hit, _quote(item.text))
        if n is not None:
            lines.append(f"{'  ' * (item.depth + 1)}- {normalise(item.text)} {markers([n])}")
    if not whole.complete:
        lines.append(f"  - … (the list goes on{f' in {clause}' if clause else ''})")
    return lines


def _guided_rule_lines(guidance: Sequence[Sentence], hits: Sequence[ChunkHit],
                       book: CitationBook) -> list[str]:
    """The rule that the first guidance sentence explains (``guided_rule``), for an answer
    about what is required that is made of guidance alone: its opening line cited, and its
    list whole when it opens one; nothing when no chunk at hand holds the rule."""
    for sentence in guidance:
        found = guided_rule.find(hits, sentence.hit, clause_of(sentence.hit, sentence.text))
        if found is None:
            continue
        title = sentence.hit.document_title
        if (whole := guided_rule.its_list(found, hits)) is not None:
            return _whole_lines(whole, title, book)
        line, n = _cited_line(title, found.clause, found.hit, found.text, book)
        return [line] if n is not None else []
    return []


def _cited_line(title: str, clause: str | None, hit: ChunkHit, text: str,
                book: CitationBook) -> tuple[str, int | None]:
    """"- Title, clause: text [n]", ``text`` cited from ``hit`` (no marker when its quote
    does not verify), and the citation's number."""
    where = f"{title}, {clause}" if clause and clause != title else title
    n = book.cite(hit, _quote(text))
    return f"- {where}: {normalise(text)} {markers([n])}".rstrip(), n


def _quote(text: str) -> str:
    """``text`` as a quote: whole, or cut at a word within the quote's length."""
    if len(text) <= MAX_QUOTE_CHARS:
        return text
    cut = text.rfind(" ", 0, MAX_QUOTE_CHARS)
    return text[:cut if cut > 0 else MAX_QUOTE_CHARS]


def bullet(statement: Statement) -> str:
    return f"- {statement.text} {markers(statement.citations)}".rstrip()


async def inquiry(embedder: Embedder, question: str, hits: Sequence[ChunkHit],
                  book: CitationBook, *, caution: bool, kept: Kept | None = None,
                  follow_up: str | None = None) -> Composed:
    top = sorted(retrieved(hits), key=lambda h: -h.score)[:EVIDENCE_CHUNKS]
    candidates = sentences_of(top)
    if not candidates:
        return Composed(answer="No passage in the selected documents addresses this question. "
                        "Please rephrase it or tag the documents to search.")
    query, matrix = await query_and_sentences(embedder, question, candidates, kept)
    # A provision whose own heading names what is asked ("Article 17 Right to erasure" for
    # "when must we erase someone's records?") is where the answer is, before a neighbour that
    # merely mentions it ("… any rectification or erasure carried out in accordance with…").
    titled_by = HEADING_WEIGHT * np.clip(
        await heading_vectors(embedder, candidates, kept) @ query, 0, 1)
    similarity = under_headings(candidates, matrix @ query) + titled_by
    # How well the sentence matches the question, and how relevant retrieval found its chunk.
    pointing = pointers(candidates)
    kind = answer_kind.asked(question)
    act = answer_kind.asked_act(question)
    relevance = [(1 - CHUNK_WEIGHT) * float(similarity[i]) + CHUNK_WEIGHT * s.hit.score
                 - 0.05 * s.is_fragment - HEADING_PENALTY * s.is_heading
                 - HEADING_PENALTY * pointing[i]
                 + KIND_BONUS * bool(kind and answer_kind.states(kind, s.clean))
                 + KIND_BONUS * bool(act and answer_kind.grants(act, s.clean))
                 for i, s in enumerate(candidates)]
    best = max(relevance)
    picked = [i for i in mmr(relevance, matrix, INQUIRY_POINTS)
              if relevance[i] >= best - POINT_MARGIN]
    rule: list[str] = []
    requirements = asks_requirements(question)
    own = bool(_OWN_DOCUMENTS.search(question))

    def order(i: int) -> tuple[bool, bool]:
        # What the regulations say leads (a company's own policy restating it follows, unless
        # the question is about the policy); then, for what is required, the rules before the
        # guidance.
        sentence = candidates[i]
        return (not own and sentence.hit.doc_type != DocType.REGULATION,
                requirements and not rules[i])

    # The rules: what binds, and - asked whether something may be done - what gives or
    # withholds that leave ("may outsource", outside guidance like any rule).
    leave = [bool(act and answer_kind.grants(act, s.clean)) and "guidance" not in (
        clause_of(s.hit, s.text) or "").lower() for s in candidates]
    rules = [s.binds or leave[i] for i, s in enumerate(candidates)]
    if requirements:
        # What is required is led by the binding rule closest to the question, among those
        # close enough to be shown: a chunk retrieval ranked higher (a list of guidance) must
        # not push the rule itself out of the answer.
        binding = [i for i, s in enumerate(candidates) if rules[i] and (
            own or s.hit.doc_type == DocType.REGULATION) and relevance[i] >= best - POINT_MARGIN]
        if binding:
            # A follow-up was searched with the thread's earlier questions (they keep it on
            # the subject), but what it asks is in its own words: "and for how long must the
            # records be kept?" after a question on reporting suspicion is led by the rule close
            # to both - the keeping of the reports' records -, not by the earlier question's
            # rule nor by another subject's records.
            closest = similarity if not follow_up else np.minimum(similarity, under_headings(
                candidates, matrix @ (await embed(embedder, [follow_up]))[0]))
            lead = max(binding, key=lambda i: float(closest[i]) + KIND_BONUS * leave[i])
            picked = [lead, *(i for i in picked if i != lead)][:INQUIRY_POINTS]
    if not own:
        picked = _with_a_regulation(picked, candidates, relevance)
    picked.sort(key=order)
    # A bare piece of a list after the lead ("where applicable, the contact details of the
    # officer; …": an item whose lead-in is neither shown nor read) says nothing on its own.
    picked = picked[:1] + [i for i in picked[1:] if not _bare_piece(candidates[i])]
    if requirements and not any(rules[i] for i in picked):
        rule = _guided_rule_lines([candidates[i] for i in picked], hits, book)
    lines = _lead([*rule, *listed([candidates[i] for i in picked], book, hits)])
    if caution:
        lines += ["", CAUTION]
    return Composed(answer="\n".join(lines))


def _bare_piece(sentence: Sentence) -> bool:
    """A list item or a sentence's tail shown without the words that give it its sense."""
    return sentence.is_fragment and sentence.lead_in is None


def _with_a_regulation(picked: list[int], candidates: Sequence[Sentence],
                       relevance: Sequence[float]) -> list[int]:
    """``picked`` with the regulation's closest sentence leading when only the firm's own
    documents made the cut: a question of what may or must be done is answered by the rule,
    and the policy that restates it follows (it is no authority on it). Within
    ``REGULATION_MARGIN`` of the best point only: a regulation that is not about the question
    adds nothing."""
    if any(candidates[i].hit.doc_type is DocType.REGULATION for i in picked):
        return picked
    rules = [i for i, s in enumerate(candidates) if s.hit.doc_type is DocType.REGULATION
             and not s.is_heading]
    if not rules:
        return picked
    best = max(rules, key=lambda i: relevance[i])
    if relevance[best] < max(relevance) - REGULATION_MARGIN:
        return picked
    return [best, *picked][:INQUIRY_POINTS]


# A question about the firm's own documents ("our policy", "the procedure") is answered from
# them first.
_OWN_DOCUMENTS = re.compile(r"\b(?:our|my|we|the company's|internal)\b.{0,40}\b(?:polic\w*|"
                            r"procedures?|manual|standards?|framework)\b|\bpolicy\b", re.I)


def _lead(lines: list[str]) -> list[str]:
    """The answer opens with its best provision as a sentence ("Under Market Rules, 14.2.2: An
    Employee must … [1]"), its list items under it; the other provisions follow as points."""
    if not lines or not lines[0].startswith("- "):
        return lines
    first = f"Under {lines[0][2:]}"
    rest = lines[1:]
    items = 0
    while items < len(rest) and rest[items].startswith("  "):
        items += 1
    block = [first, *rest[:items]]
    return block + (["", *rest[items:]] if rest[items:] else [])


async def summary(embedder: Embedder, documents: Sequence[Document],
                  samples: dict[UUID, list[ChunkHit]], book: CitationBook, *,
                  kept: Kept | None = None) -> Composed:
    sections: list[SummarySection] = []
    lines: list[str] = []
    for document in documents:
        hits = samples.get(document.id, [])
        # Fewer sentences of each chunk when the sample follows the document's parts: every
        # part keeps its own (the cap would leave the last parts without any).
        structured = outline.level_of(hits) is not None
        per_chunk = (8 if not structured else 4 if len(hits) <= MAX_OUTLINE_SENTENCES // 4
                     else 2)  # a document of many parts: two sentences of each chunk
        candidates = [s for s in sentences_of(hits, per_chunk=per_chunk)
                      if s.is_statement][:MAX_OUTLINE_SENTENCES if structured
                                         else MAX_SUMMARY_SENTENCES]
        if not candidates:
            sections.append(SummarySection(document_id=document.id, title=document.title,
                                           overview="The document has no summarisable text."))
            continue
        matrix = await sentence_vectors(embedder, candidates, kept)
        centroid = matrix.mean(axis=0)
        centroid /= max(float(np.linalg.norm(centroid)), 1e-9)
        centrality = [float(v) for v in matrix @ centroid]
        overview_at = _self_description(candidates)
        if overview_at is None:
            overview_at = int(np.argmax(centrality))
        overview = cite(book, candidates[overview_at])
        level = outline.level_of(hits) if structured else None
        parts: list[SummaryPart] = []
        walked_lines: list[part_lines.PartLine] = []
        coverage: str | None = None
        key: list[Statement] = []
        if level is not None:
            # The document's own title heading at the parts' level (front matter under it) is
            # no part of it: "Regulation (EU) …" before Chapter I.
            walked = [p for p in outline.parts_of(hits, level)
                      if p.heading.strip().lower() not in {
                          document.title.lower(),
                          titled(document.title, document.version).lower()}]
            walked_lines = await part_lines.walk(embedder, book, document.id, hits, candidates,
                                                 matrix, walked, level, overview=overview_at,
                                                 kept=kept)
            parts = [p.part for p in walked_lines]
            coverage = (f"{len(parts)} of {len(walked)} {outline.noun(walked)} summarised, "
                        "in the document's order")
            if (none := part_lines.without_duty(walked_lines)) is not None:
                coverage += (f"; {none} state no duty in the passages read, and their lines "
                             "say what they set out")
        else:
            obligations = key_duties(candidates, exclude=overview_at)
            chosen = mmr([centrality[i] for i in obligations], matrix[obligations],
                         SUMMARY_OBLIGATIONS, diversity=0.5)
            ordered = sorted((obligations[j] for j in chosen),
                             key=lambda i: (candidates[i].hit.ordinal, candidates[i].position))
            key = [st for i in ordered if (st := cite(book, candidates[i])) is not None]
        shown = f"{overview.text} {markers(overview.citations)}" if overview else ""
        sections.append(SummarySection(
            document_id=document.id, title=document.title, overview=shown,
            key_obligations=key, parts=parts, coverage=coverage))
        heading = titled(document.title, document.version)
        lines += [f"## {heading}", ""]
        if shown:
            lines += [f"Overview: {shown}", ""]
        if coverage:
            lines += [f"Coverage: {coverage}.", ""]
        if walked_lines:
            lines += [p.line for p in walked_lines] + [""]
        if key:
            lines += ["Key obligations:"] + [bullet(s) for s in key] + [""]
    return Composed(answer="\n".join(lines).strip(), summary=SummaryResult(sections=sections))
