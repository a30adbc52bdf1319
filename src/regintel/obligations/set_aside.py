"""A text that sets a duty aside: "let's skip the checks this once", "we will not tell the
compliance team", "no need to ask where the funds come from". Each such act - the words after
the cue, up to the end of its clause - is what the matrix matches against the regulation's
obligations: an act a binding duty requires, set aside, contradicts it; an act a rule
forbids, set aside, agrees with it. The cues are of English in general, never of one
regulation."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from regintel.domain.coverage import CoverageRow, FactDifference
from regintel.obligations.lexical import content_words
from regintel.obligations.matrix import (
    SHIPPED,
    Conflict,
    Regulation,
    Thresholds,
    closeness,
    duty_of,
    row_of,
    row_text,
)
from regintel.obligations.policy_text import PolicyUnit

# Saying an act will not be done: negated modals, "never", "no need to", and the verbs of
# leaving something out or putting it off.
_CUE = re.compile(
    r"\b(?:(?:do|does|did|will|would|shall|should|can|could|must|need|let['’]s|to|and|or|"
    r"but)\s+not|"
    r"(?:do|does|did|wo|ca|should|would|could|need)n['’]t|never|no need to|not need to|"
    r"not have to|skip(?:s|ped|ping)?|stop(?:s|ped|ping)?|forgo|waive|bypass|ignore|"
    r"postpone|put off|hold off(?: on)?|instead of)\b", re.IGNORECASE)
# An act ends where its clause does.
_END = re.compile(r"[.;:!?]|,|\s(?:and|but|so|because|as|while|unless|until|since|or)\s",
                  re.IGNORECASE)
MIN_ACT_WORDS = 2


@dataclass(frozen=True)
class SetAside:
    cue: str
    act: str  # the act set aside, verbatim
    start: int  # the cue's offset in the sentence
    end: int  # the act's end


def acts_set_aside(sentence: str) -> list[SetAside]:
    found: list[SetAside] = []
    for cue in _CUE.finditer(sentence):
        if cue[0].lower() == "or not" and sentence[:cue.start()].rstrip().lower().endswith(
                "whether"):
            continue  # "whether or not" sets nothing aside
        rest = sentence[cue.end():]
        stop = _END.search(rest)
        act = rest[:stop.start() if stop else len(rest)].strip()
        if len(act.split()) >= MIN_ACT_WORDS:
            found.append(SetAside(cue[0], act, cue.start(), cue.end() + rest.index(act)
                                  + len(act)))
    return found


MARGIN = 0.05  # above SET_ASIDE, an act is surely the duty's
SET_ASIDE = 0.4  # an act's closeness to the duty it sets aside (blended, as the matrix's)


def rows_setting_aside(regulation: Regulation, units: Sequence[PolicyUnit],
                       unit_vectors: npt.NDArray[np.float32],
                       acts: Sequence[tuple[int, SetAside]],
                       act_vectors: npt.NDArray[np.float32], *,
                       thresholds: Thresholds = SHIPPED,
                       least: float = SET_ASIDE) -> list[CoverageRow]:
    """The rows whose duty a unit sets aside: each act (``acts``: the unit it stands in, the
    act) read against the binding rules, the closest one kept when it is a duty (a
    prohibition set aside is kept, not broken) at least ``least`` close. A rule is set aside
    once, by its closest act."""
    binding = [i for i, r in enumerate(regulation.rows) if r.strength != "recommendation"]
    if not acts or not binding:
        return []
    texts = [row_text(regulation.rows[i]) for i in binding]
    to_acts = closeness(regulation.vectors[binding], texts, act_vectors,
                        [content_words(a.act) for _, a in acts])
    best: dict[int, tuple[float, int]] = {}
    for n in range(len(acts)):
        top = int(np.argmax(to_acts[:, n]))
        score = float(to_acts[top, n])
        row = regulation.rows[binding[top]]
        if score >= least and row.strength == "mandatory" and \
                score > best.get(top, (-1.0, -1))[0]:
            best[top] = (score, n)
    if not best:
        return []
    to_units = closeness(regulation.vectors[[binding[t] for t in best]],
                         [texts[t] for t in best], unit_vectors,
                         [content_words(u.text) for u in units])
    out = []
    for k, (top, (score, n)) in enumerate(best.items()):
        row = regulation.rows[binding[top]]
        unit, act = acts[n]
        difference = FactDifference(kind="permission", policy=f"{act.cue} {act.act}",
                                    rule=duty_of(row))
        found = row_of(row, to_units[k], units, None, Conflict([difference], unit, score),
                       thresholds)
        # How sure the finding is turns on the act's closeness to the duty, not on how
        # much of the rule the whole sentence restates: a duty plainly set aside is grave.
        uncertain = score < least + MARGIN
        out.append(found.model_copy(update={"uncertain": uncertain,
                                            "severity": "Medium" if uncertain else "High"}))
    return out
