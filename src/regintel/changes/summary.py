"""What a substantive change changed, in the obligation register's terms where they apply.

The facts are read by the same reader the register uses (``obligations.facts.facts_of``) and
the force by the same modal finder (``obligations.extract``), sentence against sentence, so a
change report and an audit speak of one period, one deadline, one "must". The sentence keeps
the new text's own words up to the fact, with "now" after its modal and the old value after
("Records must now be kept for six years, not five")."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from difflib import SequenceMatcher
from typing import Literal

from pydantic import BaseModel, ConfigDict

from regintel.changes.similarity import dice
from regintel.domain.coverage import TypedFact
from regintel.obligations.extract import actor_of, conditions_of, find_modal, strength_of
from regintel.obligations.facts import facts_of
from regintel.sentences import sentence_spans

FactKindChanged = Literal["period", "deadline", "frequency", "amount", "percentage",
                          "threshold", "approver", "extent", "force", "bound", "condition"]
_TYPED = ("period", "deadline", "frequency", "amount", "percentage", "threshold", "approver",
          "extent")
_NAMES = {"period": "period", "deadline": "deadline", "frequency": "frequency",
          "amount": "amount", "percentage": "percentage", "threshold": "threshold",
          "approver": "approver", "extent": "extent", "force": "force",
          "bound": "who is bound", "condition": "condition"}
_GLUED = re.compile(r"\d[A-Z]")
MAX_CLAUSE_WORDS = 24
SAME_SENTENCE = 0.7  # word overlap below which a replaced sentence is another sentence
QUOTE_WORDS = 14


class FactChange(BaseModel):
    """One typed fact that a change added, removed or altered."""

    model_config = ConfigDict(frozen=True)

    kind: FactKindChanged
    change: Literal["changed", "added", "removed"]
    old: str | None = None  # verbatim
    new: str | None = None
    old_value: float | None = None
    new_value: float | None = None
    unit: str | None = None


def _flat(text: str) -> str:
    return " ".join(text.split())


def _sentences(text: str) -> list[str]:
    return [_flat(text[s:e]) for s, e in sentence_spans(text)]


def sentence_pairs(old: str, new: str) -> Iterator[tuple[str | None, str | None]]:
    """Sentences that differ, paired in order: (old, new), (old, None), (None, new)."""
    a, b = _sentences(old), _sentences(new)
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        olds, news = a[i1:i2], b[j1:j2]
        for k in range(max(len(olds), len(news))):
            yield (olds[k] if k < len(olds) else None, news[k] if k < len(news) else None)


def _typed(sentence: str | None) -> tuple[list[TypedFact], re.Match[str] | None]:
    if not sentence:
        return [], None
    modal = find_modal(sentence)
    strength = strength_of(modal[0]) if modal else None
    # "Form 6NIA" is a form's name, not six units of a currency "NIA".
    return [f for f in facts_of(sentence, strength) if f.kind in _TYPED and not (
        f.kind == "amount" and _GLUED.search(f.text))], modal


def _same(a: TypedFact, b: TypedFact) -> bool:
    return (a.value, a.unit, a.comparator) == (b.value, b.unit, b.comparator) and \
        _flat(a.text).lower() == _flat(b.text).lower()


def _fact(kind: FactKindChanged, old: TypedFact | None, new: TypedFact | None) -> FactChange:
    change: Literal["changed", "added", "removed"] = (
        "changed" if old and new else "added" if new else "removed")
    either = new or old
    return FactChange(kind=kind, change=change, old=old.text if old else None,
                      new=new.text if new else None, old_value=old.value if old else None,
                      new_value=new.value if new else None,
                      unit=either.unit if either else None)


def _bare(actor: str | None) -> str | None:
    return actor.strip(" ,;:") if actor else None


def _sentence_facts(old: str | None, new: str | None) -> list[FactChange]:
    if old and new and dice(old, new) < SAME_SENTENCE:  # two sentences, not one amended
        return _sentence_facts(old, None) + _sentence_facts(None, new)
    (fo, mo), (fn, mn) = _typed(old), _typed(new)
    found: list[FactChange] = []
    for kind in _TYPED:
        lo = [f for f in fo if f.kind == kind]
        ln = [f for f in fn if f.kind == kind]
        for k in range(max(len(lo), len(ln))):
            a = lo[k] if k < len(lo) else None
            b = ln[k] if k < len(ln) else None
            if a is None or b is None or not _same(a, b):
                found.append(_fact(kind, a, b))  # type: ignore[arg-type]
    if mo and mn and old and new:
        if _flat(mo[0]).lower() != _flat(mn[0]).lower():
            found.append(FactChange(kind="force", change="changed", old=mo[0], new=mn[0],
                                    unit=strength_of(mn[0])))
        bound_old, bound_new = (_bare(actor_of(old, mo.start())),
                                _bare(actor_of(new, mn.start())))
        if bound_old and bound_new and dice(bound_old, bound_new) < 1.0:
            found.append(FactChange(kind="bound", change="changed", old=bound_old,
                                    new=bound_new))
    elif mn and new and old is not None and mo is None:
        found.append(FactChange(kind="force", change="added", new=mn[0],
                                unit=strength_of(mn[0])))
    # A table's cells are not clauses.
    conds_old = [c.text for c in conditions_of(old)] if old and "|" not in old else []
    conds_new = [c.text for c in conditions_of(new)] if new and "|" not in new else []
    for text in conds_new:
        twin = next((c for c in conds_old if dice(c, text) >= 0.5), None)
        if twin is None:
            found.append(FactChange(kind="condition", change="added", new=text))
        elif _flat(twin).lower() != _flat(text).lower():
            found.append(FactChange(kind="condition", change="changed", old=twin, new=text))
    for text in conds_old:
        if all(dice(c, text) < 0.5 for c in conds_new):
            found.append(FactChange(kind="condition", change="removed", old=text))
    return found


def _key(text: str | None) -> str:
    return _flat(text or "").lower()


def facts_changed(old: str, new: str) -> list[FactChange]:
    """The typed facts that differ between two texts of one provision (either may be empty:
    an inserted provision adds its facts, a deleted one removes them). A fact removed from
    one sentence and added in another, the same, did not change."""
    found: list[FactChange] = []
    for so, sn in sentence_pairs(old, new):
        for fact in _sentence_facts(so, sn):
            if fact not in found:
                found.append(fact)
    added = Counter((f.kind, _key(f.new)) for f in found if f.change == "added")
    removed = Counter((f.kind, _key(f.old)) for f in found if f.change == "removed")
    drop = {"added": added & removed, "removed": added & removed}
    kept: list[FactChange] = []
    for fact in found:
        key = (fact.kind, _key(fact.new if fact.change == "added" else fact.old))
        if fact.change in drop and drop[fact.change][key] > 0:
            drop[fact.change][key] -= 1
            continue
        kept.append(fact)
    return kept


def _short_old(old: str, new: str) -> str:
    """"five" for "five years" against "six years", "30" for "within 30 days" against "within
    10 days": what the two share said once, by the new value."""
    a, b = old.split(), new.split()
    while len(a) > 1 and len(b) > 1 and a[0].lower() == b[0].lower():
        a, b = a[1:], b[1:]
    while len(a) > 1 and len(b) > 1 and a[-1].lower() == b[-1].lower():
        a, b = a[:-1], b[:-1]
    return " ".join(a)


def _clause(sentence: str, fact: str) -> str | None:
    """The new sentence up to the fact, "now" after its modal, at most MAX_CLAUSE_WORDS."""
    at = sentence.lower().find(fact.lower())
    if at < 0:
        return None
    clause = sentence[:at + len(fact)]
    modal = find_modal(clause)
    if modal is not None:
        clause = f"{clause[:modal.end()]} now{clause[modal.end():]}"
    words = clause.split()
    if len(words) > MAX_CLAUSE_WORDS:
        words = ["…", *words[-MAX_CLAUSE_WORDS:]]
    return " ".join(words)


def _sentence_with(text: str, fact: str) -> str | None:
    return next((s for s in _sentences(text) if fact.lower() in s.lower()), None)


def _quote(text: str) -> str:
    words = text.split()
    return " ".join(words[:QUOTE_WORDS]) + (" …" if len(words) > QUOTE_WORDS else "")


def fact_sentence(fact: FactChange, new_text: str) -> str:
    """One clause for one fact change."""
    name = _NAMES[fact.kind]
    if fact.kind == "force" and fact.change == "changed":
        return f"“{fact.old}” became “{fact.new}”"
    if fact.kind == "condition":
        if fact.change == "changed":
            return f"a condition now reads “{_quote(fact.new or '')}”, where it read " \
                   f"“{_quote(fact.old or '')}”"
        verb = "adds" if fact.change == "added" else "removes"
        said = fact.new if fact.change == "added" else fact.old
        return f"{verb} a condition: “{_quote(said or '')}”"
    if fact.kind == "bound":
        return f"who is bound is now “{fact.new}”, where it was “{fact.old}”"
    if fact.change == "changed" and fact.new and fact.old:
        sentence = _sentence_with(new_text, fact.new)
        clause = _clause(sentence, fact.new) if sentence else None
        if clause:
            return f"{clause}, not {_short_old(fact.old, fact.new)}"
        return f"the {name} is now {fact.new}, where it was {fact.old}"
    if fact.change == "added":
        article = "an" if name[0] in "aeiou" else "a"
        return f"adds {article} {name}: “{fact.new}”"
    return f"removes the {name} “{fact.old}”"


def summary_of_facts(facts: list[FactChange], new_text: str, limit: int = 2) -> str | None:
    if not facts:
        return None
    # Values first (what a reader checks a policy against), then force, then the rest.
    order = {"changed": 0, "added": 1, "removed": 2}
    ranked = sorted(facts, key=lambda f: (f.kind not in _TYPED, f.kind != "force",
                                          order[f.change]))
    parts = [fact_sentence(f, new_text) for f in ranked[:limit]]
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def quote_words(text: str) -> str:
    return _quote(_flat(text))
