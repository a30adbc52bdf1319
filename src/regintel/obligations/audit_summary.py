"""The parts of an audit result every mode shares: the overall status and the summary."""

from __future__ import annotations

from collections.abc import Sequence

from regintel.domain.chat import SEVERITY_ORDER, AuditFinding, OverallStatus
from regintel.domain.documents import Document

SHOWN_RULES = 8  # rules a verdict without findings names before "and N more"


def overall_status(findings: Sequence[AuditFinding], open_rows: int = 0) -> OverallStatus:
    """``open_rows``: obligations left to the officer's review; with none proven, the verdict
    says a review is needed, never "No issues found"."""
    if any(f.severity in ("Critical", "High") for f in findings):
        return "Major Violations"
    if findings:
        return "Minor Issues"
    return "Review needed" if open_rows else "No issues found"


def rules_named(rules: Sequence[str]) -> str:
    shown = ", ".join(rules[:SHOWN_RULES])
    more = len(rules) - SHOWN_RULES
    return shown + (f" and {more} more" if more > 0 else "")


def summary(findings: Sequence[AuditFinding], targets: Sequence[Document],
            themes: Sequence[str], *, what: str = "policy", held_back: int = 0,
            not_offered: Sequence[str] = (), rules: Sequence[str] | None = None,
            reach: str | None = None, flagged: int = 0) -> str:
    """A short, factual paragraph: what was checked, what was found, where it is gravest.
    ``what`` is the source: "policy" or "text"; ``held_back``: findings of lower rank that
    the per-regulation caps left out of the list; ``not_offered``: the activities the policy
    says its firm does not offer, whose rules were not checked (scope.py); ``rules``: the
    rules the text was checked against (None: not recorded by this engine); ``reach``: what
    the check covered, when the engine says it (the matrix reads every sentence of a text);
    ``flagged``: the text's sentences flagged for the reader to weigh (flags.py)."""
    # Said either way: a reader must know which rules were set aside, and why.
    set_aside = (f" Rules on activities the {what} says the firm does not offer ("
                 f"{', '.join(not_offered)}) were not checked." if not_offered else "")
    checked = f"{len(targets)} regulation{'s' if len(targets) != 1 else ''}"
    scope = f" across {len(themes)} policy themes" if themes else ""
    if not findings:
        if rules is not None and not rules:
            subject = "what the text says" if what == "text" else f"the {what}'s themes"
            return (f"No rule of the {checked} checked matched {subject}, so nothing in the "
                    f"{what} could be tested against them. This is not a finding that the "
                    f"{what} complies: check it against the rules that govern its subject."
                    f"{set_aside}")
        reach = reach or ("the obligations retrieved for each theme" if what == "policy" else
                          "the statements in the text that carry a compliance risk")
        # With sentences flagged, "no issues" would say more than was checked: nothing was
        # proven, and the flags are for the reader to weigh.
        none = "No finding proven" if flagged else "No issues found"
        named = (f"{none} in the {len(rules)} rule{'s' if len(rules) != 1 else ''} "
                 f"checked ({rules_named(rules)}) of {checked}{scope}." if rules else
                 f"{none} against {checked}{scope}.")
        if flagged:
            named += (f" {flagged} sentence{'s' if flagged != 1 else ''} of the {what} "
                      f"propose{'s' if flagged == 1 else ''} leaving something undone, late, "
                      "hidden or altered: weigh each against the rules listed with it.")
        return (f"{named} The check covers {reach}, not every rule; it is not a finding that "
                f"the {what} complies, nor a legal opinion.{set_aside}")
    counts = {s: sum(1 for f in findings if f.severity == s) for s in SEVERITY_ORDER}
    graded = ", ".join(f"{n} {s.lower()}" for s, n in counts.items() if n)
    conflicts = sum(1 for f in findings if f.kind == "conflict")
    gaps = len(findings) - conflicts
    per_target = "; ".join(
        f"{t.title}: {sum(1 for f in findings if f.target_doc_id == t.id)}" for t in targets)
    worst = min(findings, key=lambda f: SEVERITY_ORDER.index(f.severity))
    lead = (f"The most serious issue concerns {worst.target_doc_title} "
            f"{worst.target_clause or ''}".rstrip() + ".")
    found = (f"{conflicts} conflict{'s' if conflicts != 1 else ''} where the {what} says "
             f"otherwise" + (f" and {gaps} gap{'s' if gaps != 1 else ''} where it is silent"
                             if what == "policy" else ""))
    # "Up to": a held-back draft is counted before its quotes are verified.
    unlisted = (f" Up to {held_back} further finding{'s' if held_back != 1 else ''} of lower "
                f"severity or confidence {'were' if held_back != 1 else 'was'} not listed."
                if held_back else "")
    return (f"Checked against {checked}{scope}: {len(findings)} "
            f"finding{'s' if len(findings) != 1 else ''} ({graded}) - {found} "
            f"({per_target}). {lead} Each finding quotes the rule and the {what} it was "
            f"matched to; conflicts should be corrected first.{unlisted}{set_aside}")
