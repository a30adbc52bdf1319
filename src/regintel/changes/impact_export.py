"""The impact report as a file (XLSX or DOCX): what the new version changes in the
obligations, which review decisions reopen, and which project items cite rewritten text. The
tables say in words what each impact means for the officer, so a printout stands alone."""

from __future__ import annotations

from regintel.changes.impact import IMPACT_KINDS, ObligationImpact
from regintel.changes.impacting import AffectedDecision, AffectedItem, ImpactReport
from regintel.reports import tabular
from regintel.reports.review_lines import iso_minute
from regintel.reports.tables import Cell

KIND_LABELS = {"altered": "Altered", "removed": "Removed", "added": "Added",
               "renumbered": "Renumbered", "editorial": "Editorial only"}
# What the officer does about each kind.
KIND_ACTIONS = {"altered": "Review again: decisions on it reopen",
                "removed": "Review again: decisions on it reopen",
                "added": "New duty: not yet in any audit",
                "renumbered": "None: decisions carry over",
                "editorial": "None: decisions carry over"}
DECISION_LABELS = {"met": "Met", "partly_met": "Partly met", "gap": "Gap",
                   "not_applicable": "Not applicable"}


def _rule(impact: ObligationImpact) -> str:
    old = impact.old.rule if impact.old and impact.old.rule else ""
    new = impact.new.rule if impact.new and impact.new.rule else ""
    return f"{old} → {new}" if old and new and old != new else (new or old or impact.provision)


def _obligation_cells(impact: ObligationImpact) -> list[Cell]:
    return [KIND_LABELS[impact.kind], _rule(impact), impact.provision,
            impact.old.text if impact.old else "", impact.new.text if impact.new else "",
            impact.summary, KIND_ACTIONS[impact.kind]]


def _decision_cells(affected: AffectedDecision) -> list[Cell]:
    return [affected.policy, affected.rule or _rule(affected.impact),
            DECISION_LABELS[affected.decision], affected.decided_by,
            iso_minute(affected.decided_at), KIND_LABELS[affected.impact.kind],
            affected.impact.summary]


def _item_cells(item: AffectedItem) -> list[Cell]:
    return [item.project, item.kind.capitalize(), item.title, item.state, item.quote,
            item.summary]


def tabular_report(report: ImpactReport) -> tabular.TabularReport:
    counts = {kind: sum(1 for i in report.obligations if i.kind == kind)
              for kind in IMPACT_KINDS}
    said = ", ".join(f"{n} {KIND_LABELS[k].lower()}" for k, n in counts.items() if n) or "none"
    policies = sorted({d.policy for d in report.decisions})
    title = f"Impact of {report.new_name} (from {report.old_name})"
    summary = [("From", report.old_name), ("To", report.new_name),
               ("Obligations", said),
               ("Decisions reopened", f"{len(report.decisions)}"
                + (f" in {len(policies)} polic{'y' if len(policies) == 1 else 'ies'}: "
                   + "; ".join(policies) if policies else "")),
               ("Project items", f"{len(report.items)} cite text the new version rewrote"),
               ("How it was read", "Each obligation of both versions placed in the change "
                "that holds its words; editorial changes and renumbering keep decisions")]
    ordered = sorted(report.obligations, key=lambda i: IMPACT_KINDS.index(i.kind))
    tables = [
        tabular.Table("Obligations", ("Impact", "Rule", "Provision", "Before (verbatim)",
                                      "After (verbatim)", "What changed", "Action"),
                      (14, 16, 18, 48, 48, 40, 24), (2.0, 2.2, 2.4, 5.4, 5.4, 4.6, 2.5),
                      [_obligation_cells(i) for i in ordered],
                      empty="No obligation changed."),
        tabular.Table("Decisions reopened", ("Policy", "Rule", "Decision", "Decided by",
                                             "Decided at", "Impact", "What changed"),
                      (30, 16, 14, 18, 16, 14, 60), (4.0, 2.4, 2.2, 2.8, 2.6, 2.2, 8.3),
                      [_decision_cells(d) for d in report.decisions],
                      empty="No decision rests on an obligation this version altered or "
                            "removed.",
                      intro="The officer's decisions that rested on an obligation this "
                            "version altered or removed: they no longer stand."),
        tabular.Table("Project items", ("Project", "Kind", "Title", "State",
                                        "Cited text (verbatim)", "What changed"),
                      (24, 12, 36, 14, 48, 48), (3.2, 1.8, 4.6, 2.0, 6.4, 6.5),
                      [_item_cells(i) for i in report.items],
                      empty="No requirement, risk or task cites text this version rewrote."),
    ]
    return tabular.TabularReport(title=title, summary=summary, tables=tables)


def to_xlsx(report: ImpactReport) -> bytes:
    return tabular.to_xlsx(tabular_report(report))


def to_docx(report: ImpactReport) -> bytes:
    return tabular.to_docx(tabular_report(report))
