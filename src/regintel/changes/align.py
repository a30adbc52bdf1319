"""Align two versions provision by provision: sections (and division headings) first, then
the paragraphs of each pair of sections, then what is left over across sections.

The order matters for what a reader is told. A section is paired with the one that has its
words (TF-IDF cosine), its number or its heading when that heading is unique, so "§ 12
became § 14" is a renumbering, not a deletion and an insertion. Within a pair, paragraphs
with the same words are paired in order (so an inserted "(c)" makes the old "(c)" the new
"(d)", a renumbering); the rest of a run of edits is paired by words and label together;
what is still left is looked for elsewhere in the section (moved), in other sections (moved
across), or as a piece of a neighbour (split, merged). A section whose paragraphs mostly
went into one other section was merged into it, or split off from it."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal

import numpy as np

from regintel.changes.provisions import Paragraph, Unit, Version, comparable
from regintel.changes.similarity import contained, cosine_matrix, dice, words

Relation = Literal["same", "moved", "inserted", "deleted", "split", "merged"]

UNIT_COSINE = 0.5  # alike enough to be the same section under another number
UNIT_COSINE_SAME_LABEL = 0.2  # … when it also keeps its number or its unique heading
PARAGRAPH_DICE = 0.5  # alike enough to be the same paragraph, amended
MOVE_DICE = 0.75  # alike enough to be the same paragraph elsewhere
MOVE_MIN_WORDS = 5  # shorter ones ("[Reserved]") are too common to be followed
PIECE_CONTAINED = 0.8  # a split-off piece has this share of its words in the whole
PIECE_MIN_WORDS = 3
SAME_KEY_BONUS = 0.25
UNIT_SHARE = 0.5  # share of a section's words that went to one other section: split/merge
MAX_BLOCK = 40_000  # cells of a run's pairing table; past it, pair greedily


@dataclass
class ParagraphPair:
    old: tuple[Paragraph, ...]
    new: tuple[Paragraph, ...]
    relation: Relation
    old_unit: Unit | None = None
    new_unit: Unit | None = None


@dataclass
class UnitPair:
    old: tuple[Unit, ...]  # two or more for a merge
    new: tuple[Unit, ...]  # two or more for a split
    relation: Relation
    paragraphs: list[ParagraphPair] = field(default_factory=list)


@dataclass
class Alignment:
    old: Version
    new: Version
    units: list[UnitPair]
    moved: list[ParagraphPair]  # paragraphs that went from one section to another


def shape(paragraph: Paragraph) -> tuple[str, ...]:
    """The label path with the words of unlabelled steps left out: a definition reworded is
    not its list items renumbered."""
    return tuple("¶" if s.startswith("¶") else s for s in paragraph.segments)


def _unit_text(unit: Unit) -> str:
    return "\n".join([unit.heading, *(p.body for p in unit.paragraphs)])


def _body_key(unit: Unit) -> str:
    return comparable(_unit_text(unit))


def pair_units(old: Version, new: Version) -> dict[int, int]:
    """Old unit index → new unit index, best evidence first."""
    cos = cosine_matrix([_unit_text(u) for u in old.units], [_unit_text(u) for u in new.units])
    by_label: dict[tuple[str, str], list[int]] = defaultdict(list)
    for j, unit in enumerate(new.units):
        by_label[unit.kind, comparable(unit.label)].append(j)
    headings_old = Counter(comparable(u.heading) for u in old.units)
    headings_new = Counter(comparable(u.heading) for u in new.units)
    candidates: set[tuple[int, int]] = {(int(i), int(j)) for i, j in
                                        np.argwhere(cos >= UNIT_COSINE_SAME_LABEL)}
    for i, unit in enumerate(old.units):
        candidates.update((i, j) for j in by_label.get((unit.kind, comparable(unit.label)), []))
    scored: list[tuple[float, int, int]] = []
    for i, j in candidates:
        u, v = old.units[i], new.units[j]
        if u.kind != v.kind:
            continue
        same_label = comparable(u.label) == comparable(v.label)
        heading = comparable(u.heading)
        unique_heading = bool(heading) and heading == comparable(v.heading) and \
            headings_old[heading] == 1 and headings_new[heading] == 1
        identical = _body_key(u) == _body_key(v) and (same_label or words(_unit_text(u)) >= 5)
        c = float(cos[i, j])
        tiny = words(_unit_text(u)) <= 3 and words(_unit_text(v)) <= 3
        if identical or c >= UNIT_COSINE or ((same_label or unique_heading) and
                                             (c >= UNIT_COSINE_SAME_LABEL or tiny)):
            scored.append(((2.0 if identical else c) + 0.15 * same_label + 0.1 * unique_heading,
                           i, j))
    pairs: dict[int, int] = {}
    taken: set[int] = set()
    for _, i, j in sorted(scored, reverse=True):
        if i not in pairs and j not in taken:
            pairs[i] = j
            taken.add(j)
    return pairs


def _in_order(pairs: dict[int, int], same_label: set[int]) -> set[int]:
    """The old indices of the pairs that keep their order (the rest moved): the in-order run
    that keeps the most pairs, a pair that also kept its number counting double, so in a
    swap it is the sections that changed number that moved."""
    items = sorted(pairs.items())
    best: list[float] = []
    back: list[int] = []
    for k, (i, j) in enumerate(items):
        weight = 2.0 if i in same_label else 1.0
        score, prev = weight, -1
        for m in range(k):
            if items[m][1] < j and best[m] + weight > score:
                score, prev = best[m] + weight, m
        best.append(score)
        back.append(prev)
    kept: set[int] = set()
    k = max(range(len(items)), key=best.__getitem__) if items else -1
    while k >= 0:
        kept.add(items[k][0])
        k = back[k]
    return kept


def _weight(a: Paragraph, b: Paragraph) -> float | None:
    similar = dice(a.body, b.body)
    same_key = shape(a) == shape(b)
    if similar >= PARAGRAPH_DICE or same_key:
        return similar + (SAME_KEY_BONUS if same_key else 0.0)
    return None


def _pair_run(a: list[Paragraph], b: list[Paragraph]) -> list[tuple[int, int]]:
    """Pairs (in order) of a run of edited paragraphs: the most alike, without crossing."""
    if len(a) * len(b) > MAX_BLOCK:
        found: list[tuple[float, int, int]] = []
        for i, pa in enumerate(a):
            for j, pb in enumerate(b):
                w = _weight(pa, pb)
                if w is not None:
                    found.append((w, i, j))
        chosen: list[tuple[int, int]] = []
        for _, i, j in sorted(found, reverse=True):
            if all((i - x) * (j - y) > 0 for x, y in chosen):
                chosen.append((i, j))
        return sorted(chosen)
    score = [[0.0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            best = max(score[i - 1][j], score[i][j - 1])
            w = _weight(a[i - 1], b[j - 1])
            if w is not None:
                best = max(best, score[i - 1][j - 1] + w)
            score[i][j] = best
    out: list[tuple[int, int]] = []
    i, j = len(a), len(b)
    while i and j:
        w = _weight(a[i - 1], b[j - 1])
        if w is not None and score[i][j] == score[i - 1][j - 1] + w:
            out.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif score[i][j] == score[i - 1][j]:
            i -= 1
        else:
            j -= 1
    return out[::-1]


def _moves(a: list[Paragraph], b: list[Paragraph]) -> list[tuple[int, int]]:
    """Leftover paragraphs that are one paragraph somewhere else (most alike first)."""
    a_ok = [i for i, p in enumerate(a) if words(p.body) >= MOVE_MIN_WORDS]
    b_ok = [j for j, p in enumerate(b) if words(p.body) >= MOVE_MIN_WORDS]
    if not a_ok or not b_ok:
        return []
    cos = cosine_matrix([a[i].body for i in a_ok], [b[j].body for j in b_ok])
    found = []
    for x, y in np.argwhere(cos >= 0.5):
        i, j = a_ok[int(x)], b_ok[int(y)]
        similar = dice(a[i].body, b[j].body)
        if similar >= MOVE_DICE:
            found.append((similar, i, j))
    pairs: list[tuple[int, int]] = []
    used_a: set[int] = set()
    used_b: set[int] = set()
    for _, i, j in sorted(found, reverse=True):
        if i not in used_a and j not in used_b:
            pairs.append((i, j))
            used_a.add(i)
            used_b.add(j)
    return pairs


def _pieces(whole: Paragraph, side: list[Paragraph], at: int, free: set[int]) -> list[int]:
    """Unpaired neighbours of ``side[at]`` whose words are inside ``whole``: the pieces it
    was split into (or merged from), in order."""
    taken = [at]
    for step in (-1, 1):
        k = at + step
        while k in free and 0 <= k < len(side) and _piece_of(side[k], whole):
            taken.append(k)
            k += step
    return sorted(taken)


def _piece_of(piece: Paragraph, whole: Paragraph) -> bool:
    """Most of its words are in the whole; a piece of a word or two (a heading split off,
    "Reports.") only when the whole begins or ends with it."""
    if words(piece.body) >= PIECE_MIN_WORDS:
        return contained(piece.body, whole.body) >= PIECE_CONTAINED
    part, full = comparable(piece.body), comparable(whole.body)
    return bool(part) and full != part and (full.startswith(part) or full.endswith(part))


def align_paragraphs(u: Unit, v: Unit) -> tuple[list[ParagraphPair], list[int], list[int]]:
    """The paragraph pairs of two versions of one section, and the indices of the old and new
    paragraphs left unpaired (deleted or inserted, unless found in another section)."""
    a, b = list(u.paragraphs), list(v.paragraphs)
    matcher = SequenceMatcher(None, [comparable(p.body) for p in a],
                              [comparable(p.body) for p in b], autojunk=False)
    matched: dict[int, int] = {}
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            matched.update((i1 + k, j1 + k) for k in range(i2 - i1))
        elif tag == "replace":
            matched.update((i1 + i, j1 + j) for i, j in _pair_run(a[i1:i2], b[j1:j2]))
    free_a = [i for i in range(len(a)) if i not in matched]
    free_b = sorted(set(range(len(b))) - set(matched.values()))
    moved = {free_a[x]: free_b[y] for x, y in _moves([a[i] for i in free_a],
                                                     [b[j] for j in free_b])}
    open_a, open_b = set(free_a) - set(moved), set(free_b) - set(moved.values())
    pairs: list[ParagraphPair] = []
    for i, j in sorted({**matched, **moved}.items()):
        if i in moved or comparable(a[i].body) == comparable(b[j].body):
            pairs.append(ParagraphPair((a[i],), (b[j],), "moved" if i in moved else "same",
                                       u, v))
            continue
        news = _pieces(a[i], b, j, open_b)
        olds = _pieces(b[j], a, i, open_a)
        split = len(news) > 1 and dice(a[i].body, " ".join(b[k].body for k in news)) > \
            dice(a[i].body, b[j].body)
        merged = len(olds) > 1 and dice(" ".join(a[k].body for k in olds), b[j].body) > \
            dice(a[i].body, b[j].body)
        if split or merged:  # both at once: one paragraph re-cut (a heading split off …)
            olds, news = (olds if merged else [i]), (news if split else [j])
            open_a -= set(olds)
            open_b -= set(news)
            pairs.append(ParagraphPair(tuple(a[k] for k in olds), tuple(b[k] for k in news),
                                       "merged" if len(olds) > len(news) else "split", u, v))
        else:
            pairs.append(ParagraphPair((a[i],), (b[j],), "same", u, v))
    return pairs, sorted(open_a), sorted(open_b)


def _unit_relation(u: Unit, v: Unit, in_order: bool, divisions: dict[str, str]) -> Relation:
    """"moved" when the section left its place: out of order, or under another division."""
    if u.kind == "section":
        was = divisions.get(u.divisions[-1], u.divisions[-1]) if u.divisions else None
        now = v.divisions[-1] if v.divisions else None
        if was != now:
            return "moved"
    return "same" if in_order else "moved"


def align(old: Version, new: Version) -> Alignment:
    pairs = pair_units(old, new)
    kept_number = {i for i, j in pairs.items()
                   if comparable(old.units[i].label) == comparable(new.units[j].label)}
    in_order = _in_order(pairs, kept_number)
    divisions = {old.units[i].label: new.units[j].label for i, j in pairs.items()
                 if old.units[i].kind == "division"}
    units: list[UnitPair] = []
    left_old: list[tuple[Unit, Paragraph]] = []
    left_new: list[tuple[Unit, Paragraph]] = []
    for i, j in sorted(pairs.items()):
        u, v = old.units[i], new.units[j]
        found, free_a, free_b = align_paragraphs(u, v)
        units.append(UnitPair((u,), (v,), _unit_relation(u, v, i in in_order, divisions), found))
        left_old += [(u, u.paragraphs[k]) for k in free_a]
        left_new += [(v, v.paragraphs[k]) for k in free_b]
    paired_new = set(pairs.values())
    unpaired_old = [u for i, u in enumerate(old.units) if i not in pairs]
    unpaired_new = [v for j, v in enumerate(new.units) if j not in paired_new]
    left_old += [(u, p) for u in unpaired_old for p in u.paragraphs]
    left_new += [(v, p) for v in unpaired_new for p in v.paragraphs]
    moves = [ParagraphPair((left_old[x][1],), (left_new[y][1],), "moved", left_old[x][0],
                           left_new[y][0])
             for x, y in _moves([p for _, p in left_old], [p for _, p in left_new])]
    moved_old = {id(m.old[0]) for m in moves}
    moved_new = {id(m.new[0]) for m in moves}
    partner = {id(u): pair.new[0] for pair in units for u in pair.old}
    partner_of_new = {id(v): pair.old[0] for pair in units for v in pair.new}
    consumed: set[int] = set()
    for v in unpaired_new:  # split off from a section, or a section renumbered and rewritten
        source = _main_source(v, moves, by_new=True)
        if source is None:
            units.append(UnitPair((), (v,), "inserted",
                                  [ParagraphPair((), (p,), "inserted", None, v)
                                   for p in v.paragraphs if id(p) not in moved_new]))
            continue
        group = [m for m in moves if m.new_unit is v and m.old_unit is source]
        consumed.update(id(m) for m in group)
        if id(source) in partner:
            units.append(UnitPair((source,), (partner[id(source)], v), "split", group))
        else:
            units.append(UnitPair((source,), (v,), "moved", group))
            unpaired_old.remove(source)
    for u in unpaired_old:  # merged into a section
        target = _main_source(u, moves, by_new=False)
        if target is not None and id(target) in partner_of_new:
            group = [m for m in moves if m.old_unit is u and m.new_unit is target]
            consumed.update(id(m) for m in group)
            units.append(UnitPair((partner_of_new[id(target)], u), (target,), "merged", group))
            continue
        units.append(UnitPair((u,), (), "deleted",
                              [ParagraphPair((p,), (), "deleted", u, None)
                               for p in u.paragraphs if id(p) not in moved_old]))
    for pair in units:  # what a pair left unpaired and no move explains
        if len(pair.old) == 1 and len(pair.new) == 1 and pair.relation in ("same", "moved"):
            pair.paragraphs += _leftovers(pair.old[0], pair.new[0], left_old, left_new,
                                          moved_old, moved_new)
    return Alignment(old, new, units, [m for m in moves if id(m) not in consumed])


def _leftovers(u: Unit, v: Unit, left_old: list[tuple[Unit, Paragraph]],
               left_new: list[tuple[Unit, Paragraph]], moved_old: set[int],
               moved_new: set[int]) -> list[ParagraphPair]:
    out = [ParagraphPair((p,), (), "deleted", u, v) for unit, p in left_old
           if unit is u and id(p) not in moved_old]
    out += [ParagraphPair((), (p,), "inserted", u, v) for unit, p in left_new
            if unit is v and id(p) not in moved_new]
    return out


def _main_source(unit: Unit, moves: list[ParagraphPair], by_new: bool) -> Unit | None:
    """The one section most of ``unit``'s words came from (``by_new``) or went to."""
    total = sum(words(p.body) for p in unit.paragraphs)
    if not total:
        return None
    share: Counter[int] = Counter()
    units: dict[int, Unit] = {}
    for move in moves:
        mine, other = (move.new_unit, move.old_unit) if by_new else (move.old_unit,
                                                                     move.new_unit)
        if mine is unit and other is not None:
            share[id(other)] += words((move.new if by_new else move.old)[0].body)
            units[id(other)] = other
    if not share:
        return None
    best, count = share.most_common(1)[0]
    return units[best] if count / total >= UNIT_SHARE else None
