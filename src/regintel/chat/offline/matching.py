"""Policy mode before the alignment: the policy's clauses and themes, and the obligations
of each target worth checking."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import pairwise

from regintel.chat.offline import facets, obligations
from regintel.chat.offline.drafts import Candidate
from regintel.chat.offline.lexical import STOP, tfidf
from regintel.chat.offline.omissions import MIN_GAP_EVIDENCE
from regintel.chat.offline.segments import Unit
from regintel.domain.documents import ChunkHit, StoredChunk

# Evidence: chunks below this calibrated relevance are not read; the rule section (or the
# short chapter) of a chunk at least MIN_EXPANSION relevant is read whole.
MIN_EVIDENCE = 0.3
MIN_EXPANSION = 0.5
SMALL_CHAPTER = 40  # obligations: a chapter, or a section, this short is read whole
EXPANSION_DISCOUNT = 0.8
_DEFINITIONS = re.compile(r"glossary|definitions|interpretation|contents|terminology", re.I)

# A theme's k-th hit counts as at least its best × RANK_DECAY^k (see _by_rank). Chosen on the
# three development policies over 0.5-0.9: 0.6-0.7 found K14 on Kestrel (10 → 11 of 14) and
# left Oryx and Sandgrouse as they were; 0.8 and above added false omissions on Oryx, 0.5
# found nothing more.
RANK_DECAY = 0.65
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{3,}")
# Facts the policy states: each is checked against the obligations that share most of the
# clause's words (tf-idf cosine at least MIN_ANCHOR), the ANCHORS best, anywhere in the target.
ANCHORS = 3
MIN_ANCHOR = 0.2


def themes(units: Sequence[Unit], sample: Sequence[StoredChunk], *, limit: int) -> list[str]:
    """The policy's own section headings, in order. When there are more than ``limit``,
    those the stratified sample lands in come first. A policy without headings gets the
    most frequent content-word pairs of the sampled chunks instead."""
    headings = list(dict.fromkeys(u.section for u in units if u.section))
    if len(headings) > limit:
        sampled = {u.section for u in units for c in sample
                   if u.page == c.page_start and c.char_start <= u.start < c.char_end}
        headings = [h for h in headings if h in sampled] + \
            [h for h in headings if h not in sampled]
    if headings:
        return headings[:limit]
    pairs: Counter[str] = Counter()
    for chunk in sample:
        words = [w.lower() for w in _WORD.findall(chunk.text) if w.lower() not in STOP]
        pairs.update(f"{a} {b}" for a, b in pairwise(words))
    return [p for p, _ in pairs.most_common(limit)]


def candidates(units: Sequence[Unit], evidence: dict[str, list[ChunkHit]], *,
               limit: int, applies: Callable[[Unit], bool]) -> list[Candidate]:
    """The obligations to check, at most ``limit``, in document order: those in retrieved
    chunks that are relevant enough (MIN_EVIDENCE), and - since an omission sits beside what
    was found - the other obligations of the rule section of every strongly relevant chunk
    (MIN_EXPANSION), or of its whole chapter when the chapter is short; in a section longer
    than SMALL_CHAPTER obligations, those of the rule the chunk is in ("8.3.5": a chunk
    that starts at its item (3)(d) still reads its (2)(e)). When
    there are more than ``limit``, each theme's best-scored come first, in turn."""
    ends: dict[int, list[tuple[int, int]]] = {}
    for i, unit in enumerate(units):
        ends.setdefault(unit.page, []).append((unit.end, i))
    can_check = [checkable(u) and applies(u) for u in units]
    chapter_size = Counter(u.chapter for u, ok in zip(units, can_check, strict=True) if ok)
    section_size = Counter((u.chapter, u.section)
                           for u, ok in zip(units, can_check, strict=True) if ok)
    best: dict[int, Candidate] = {}
    regions: dict[tuple[str, str], tuple[str, float]] = {}  # (chapter, section or "")
    for theme, found in evidence.items():
        for hit in _by_rank(found):
            if hit.score < MIN_EVIDENCE:
                continue
            on_page = ends.get(hit.page_start, [])
            for _, i in on_page[bisect_right(on_page, (hit.char_start, len(units))):]:
                unit = units[i]
                if unit.start >= hit.char_end:
                    break
                if hit.score >= MIN_EXPANSION and unit.section:
                    small = chapter_size[unit.chapter] <= SMALL_CHAPTER
                    whole = (unit.chapter, "" if small else unit.section)
                    # A long section: the rule the chunk is in.
                    key = whole if small or section_size[whole] <= SMALL_CHAPTER \
                        else _rule(unit)
                    if key is not None and regions.get(key, ("", -1.0))[1] < hit.score:
                        regions[key] = (theme, hit.score)
                if can_check[i] and (i not in best or best[i].score < hit.score):
                    best[i] = Candidate(unit, theme, hit.score)
    for i, unit in enumerate(units):
        if not can_check[i]:
            continue
        rule = _rule(unit)
        region = regions.get((unit.chapter, unit.section)) or \
            regions.get((unit.chapter, "")) or (regions.get(rule) if rule else None)
        # A unit a weakly relevant chunk also holds is as relevant as its region says.
        if region is not None and (i not in best or
                                   best[i].score < region[1] * EXPANSION_DISCOUNT):
            best[i] = Candidate(unit, region[0], region[1] * EXPANSION_DISCOUNT)
    return [best[i] for i in sorted(_fair_share(best, limit))]


def unreached(units: Sequence[Unit], found: Sequence[Candidate], *, limit: int,
              applies: Callable[[Unit], bool]) -> list[Candidate]:
    """The obligations of the rule sections no theme's evidence reached, in the chapters it
    did, at most ``limit`` in document order. Themes come from what the policy says, so a
    subject it never mentions is never searched, and an omission is found only where
    evidence was read; a chapter the themes reached is about the policy's business, one
    they never reached most likely is not (on the development policies, reading every
    unreached section found no more, and 8 more findings on Oryx). Each is read
    as if its evidence were just relevant enough for an omission to be asserted
    (omissions.MIN_GAP_EVIDENCE): the rule, not a search, brought it in, and it stays less
    sure than an omission found beside a strong hit. On the development policies this found
    Sandgrouse's 12.4.3 (copies of reports to the Regulator), in a section only a policy
    statement's words had pointed to (``anchored`` reads one rule, not its section). Their
    vectors are prepared with the regulation's (audit_units), so reading them costs no
    embedding."""
    reached = {(c.unit.chapter, c.unit.section) for c in found}
    chapters = {c.unit.chapter for c in found}
    left = [Candidate(u, u.section, MIN_GAP_EVIDENCE) for u in units
            if u.section and u.chapter in chapters and (u.chapter, u.section) not in reached
            and checkable(u) and applies(u)]
    return left[:limit]


def _rule(unit: Unit) -> tuple[str, str] | None:
    """The rule a unit belongs to ("8.3.5" for "8.3.5.(2)(e)") as a region, when it has
    one."""
    m = _RULE.match(unit.clause or "")
    return (unit.chapter, f"rule {m[0]}") if m else None


_RULE = re.compile(r"\d+\.\d+\.\d+")


def _by_rank(hits: Sequence[ChunkHit]) -> list[ChunkHit]:
    """A theme's hits scored by their rank under its best: the relevance model is calibrated
    on questions, and for a heading ("Trusts and foundations") it gives nearly all of its
    probability to the first hit (a glossary entry, 0.93) and almost none to the next ones
    (the rule on trusts, 0.004), which are just as much what the heading is about."""
    ranked = sorted(hits, key=lambda h: -h.score)
    if not ranked:
        return []
    top = ranked[0].score
    return [h.model_copy(update={"score": max(h.score, top * RANK_DECAY ** k)})
            for k, h in enumerate(ranked)]


def anchored(units: Sequence[Unit], policy: Sequence[Unit], *,
             applies: Callable[[Unit], bool]) -> list[Candidate]:
    """The obligations that the policy's statements of fact restate. A clause that states a
    period, a deadline, a frequency, a threshold, a due date, discretion or an approval can
    contradict its rule wherever the rule sits in the regulation - not only where a theme's
    search happened to reach - so each such clause is looked up in all of the target's
    obligations by its words (idf over the regulation: its rare words decide), and its
    ANCHORS closest are checked."""
    stating = [u for u in policy if states_fact(u)]
    obliging = [u for u in units if checkable(u) and applies(u)]
    if not stating or not obliging:
        return []
    rules, vocabulary, idf = tfidf([f"{u.section} {u.stem} {u.body}" for u in obliging])
    clauses, _, _ = tfidf([f"{u.section} {u.stem} {u.body}" for u in stating],
                          vocabulary=vocabulary, idf=idf)
    best: dict[int, Candidate] = {}
    for clause, row in zip(stating, clauses @ rules.T, strict=True):
        for i in row.argsort()[::-1][:ANCHORS]:
            score = float(row[i])
            if score >= MIN_ANCHOR and (i not in best or best[i].score < score):
                best[i] = Candidate(obliging[i], clause.section or clause.clause or "",
                                    score, anchor=clause)
    return [best[i] for i in sorted(best)]


def states_fact(unit: Unit) -> bool:
    """Whether a policy clause states a fact an obligation can be checked against (acts
    included: something done after a relationship starts, allowed with "may", a
    responsibility passed to someone outside the firm or a duty moved from its holder, a
    risk factor set aside, something accepted, or a report someone decides on; an easing
    granted beyond low risk or a measure held back for the higher tiers, work allowed while
    CDD is outstanding, an event left to the next review, a share threshold, a term said not
    to cover something, or a review said to leave something out)."""
    f = facets.read(f"{unit.stem} {unit.body}")
    return bool(f.minimum_days or f.deadline_days or f.frequency_months or f.amounts or
                f.percents or f.discretionary or f.approval or f.due_dates or
                f.after_start or f.allows or f.substitutes or f.shifts or f.dismisses or
                f.accepts or f.filters or f.moved_from or f.owned_by or f.carves_out or
                f.eases_beyond or f.held_to or f.while_pending or f.deferred or f.bounded or
                f.not_counted or f.review_leaves_out or f.sampled or f.unregulated or
                f.claims_authorisation or f.outside)


def _fair_share(found: dict[int, Candidate], limit: int) -> list[int]:
    """At most ``limit`` of ``found``, taken in turn from each theme's best-scored, so a
    theme whose evidence scores high (record keeping, say) does not crowd out the others."""
    by_theme: dict[str, list[int]] = {}
    for i in sorted(found, key=lambda i: -found[i].score):
        by_theme.setdefault(found[i].theme, []).append(i)
    queues = list(by_theme.values())
    chosen: list[int] = []
    depth = 0
    while len(chosen) < limit and any(depth < len(q) for q in queues):
        chosen += [q[depth] for q in queues if depth < len(q)][:limit - len(chosen)]
        depth += 1
    return chosen


def checkable(unit: Unit) -> bool:
    """An obligation the audit may check, a licence for low risk a policy may stretch, a
    rule's definition a policy may narrow, or an exemption's condition a policy may weaken
    (whether it applies to the policy's business is decided per audit,
    obligations.applicability)."""
    return (obligations.is_obligation(unit) or obligations.limits_an_easing(unit) or
            obligations.defines_a_term(unit) or obligations.sets_a_condition(unit)) and \
        not _DEFINITIONS.search(unit.section)


def context_of(unit: Unit) -> str:
    return obligations.context_text(unit)


def policy_clauses(units: Sequence[Unit]) -> list[Unit]:
    """The policy's units that can meet an obligation: in a clause or section, not in a
    glossary, a table of contents or an appendix (indicators, checklists and forms describe;
    the policy's commitments are in its body)."""
    return [u for u in units if (u.section or u.clause) and not _DEFINITIONS.search(u.section)
            and not _APPENDIX.match(u.clause or "")]


_APPENDIX = re.compile(r"(?:appendix|annex|schedule)\b", re.I)


