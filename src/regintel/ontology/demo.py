"""The demo compliance project, "AML programme 2026": goals, requirements, risks with and
without mitigations, blocked and overdue tasks, decisions and milestones, linked to the
library's regulations when their ids are given. Dates are relative to ``now`` so the demo always
has something overdue and something upcoming."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from regintel.domain.ontology import Entity, EntityKind
from regintel.ontology.service import OntologyService

DEMO_PROJECT_NAME = "AML programme 2026"
K = EntityKind

# key → (kind, fields, linked to the project directly?). Day offsets become dates below.
_ENTITIES: dict[str, tuple[EntityKind, dict[str, Any], bool]] = {
    "goal_cdd": (K.GOAL, {"name": "Risk-based customer due diligence in place",
                          "state_key": "active", "type_key": "goal.compliance.outcome",
                          "description": "Every customer risk-rated and screened, with "
                                         "enhanced due diligence for high-risk relationships.",
                          "target_date": 120}, True),
    "goal_str": (K.GOAL, {"name": "Timely suspicious transaction reporting",
                          "state_key": "active", "type_key": "goal.compliance.outcome",
                          "description": "STRs filed with the FIU without delay, with an "
                                         "auditable MLRO decision trail.",
                          "target_date": 90}, True),
    "goal_training": (K.GOAL, {"name": "Annual AML training for all staff",
                               "state_key": "active", "target_date": 200}, False),
    "req_ra": (K.REQUIREMENT, {"text": "Carry out and document a business risk assessment, "
                                       "reviewed at least annually.", "priority": 1,
                               "type_key": "requirement.regulatory"}, True),
    "req_edd": (K.REQUIREMENT, {"text": "Apply enhanced due diligence to PEPs and high-risk "
                                        "jurisdictions.", "priority": 1,
                                "type_key": "requirement.regulatory"}, True),
    "req_str": (K.REQUIREMENT, {"text": "Report suspicious transactions to the FIU promptly "
                                        "and never tip off the customer.", "priority": 1,
                                "type_key": "requirement.regulatory"}, True),
    # Open: the demo policy keeps records five years (its clause on record keeping), which
    # the demo audit finds short of the rules' six; the project must not call it met.
    "req_records": (K.REQUIREMENT, {"text": "Keep CDD and transaction records for at least "
                                            "six years.", "priority": 2,
                                    "type_key": "requirement.regulatory"}, True),
    "risk_pep": (K.RISK, {"title": "PEP screening misses family members and close associates",
                          "impact": "high", "probability": 0.6, "type_key": "risk.compliance",
                          "content": "The screening list only covers the PEPs themselves."},
                 True),
    "risk_backlog": (K.RISK, {"title": "Transaction-monitoring alert backlog delays STRs",
                              "impact": "critical", "probability": 0.5,
                              "content": "Over 400 alerts older than 30 days."}, True),
    "risk_records": (K.RISK, {"title": "Legacy records stored outside the retention system",
                              "impact": "high", "probability": 0.3}, True),
    "risk_training": (K.RISK, {"title": "Staff unaware of tipping-off rules",
                               "impact": "medium", "probability": 0.4}, True),
    "task_rescreen": (K.TASK, {"title": "Re-screen the customer book against the new PEP list",
                               "state_key": "blocked", "priority": 1, "due_at": -5,
                               "description": "Waiting for the vendor's RCA data feed.",
                               "props": {"blocked_reason": "vendor RCA data feed not "
                                                           "delivered", "owner": "KYC ops"}},
                      True),
    "task_vendor": (K.TASK, {"title": "Sign the RCA data feed contract with the vendor",
                             "state_key": "in_progress", "priority": 1, "due_at": -10,
                             "props": {"owner": "Procurement"}}, True),
    "task_triage": (K.TASK, {"title": "Clear the alert backlog with a triage squad",
                             "state_key": "blocked", "priority": 1, "due_at": 14,
                             "props": {"blocked_reason": "two analyst hires pending",
                                       "owner": "FIU liaison"}}, True),
    "task_hire": (K.TASK, {"title": "Hire two transaction-monitoring analysts",
                           "state_key": "todo", "priority": 2, "due_at": 30}, True),
    "task_bra": (K.TASK, {"title": "Write the 2026 business risk assessment",
                          "state_key": "done", "priority": 1, "due_at": -30,
                          "completed_at": -32}, True),
    "task_edd_proc": (K.TASK, {"title": "Update the EDD procedure for high-risk jurisdictions",
                               "state_key": "todo", "priority": 2, "due_at": -2}, True),
    "task_retention": (K.TASK, {"title": "Amend the policy's record retention from five to "
                                         "six years", "state_key": "todo", "priority": 2,
                                "due_at": 21, "props": {"owner": "Compliance"}}, True),
    "task_archive": (K.TASK, {"title": "Migrate legacy records into the retention system",
                              "state_key": "in_progress", "priority": 3, "due_at": 45}, True),
    "decision_rba": (K.DECISION, {"title": "Adopt a three-tier customer risk rating",
                                  "decision_at": -40, "outcome": "Low, medium and high tiers; "
                                  "high tier triggers EDD.", "rationale": "Matches the "
                                  "regulator's risk-based approach and our customer mix."},
                     True),
    "decision_mlro": (K.DECISION, {"title": "MLRO approves every STR before filing",
                                   "decision_at": -20, "outcome": "Single approval step.",
                                   "rationale": "Keeps one accountable owner for FIU "
                                                "reporting."}, True),
    "ms_bra": (K.MILESTONE, {"title": "Business risk assessment approved by the board",
                             "due_at": -25, "state_key": "done", "completed_at": -26}, True),
    "ms_screening": (K.MILESTONE, {"title": "Full customer book re-screened", "due_at": -1},
                     True),
    "plan_remediation": (K.PLAN, {"name": "CDD remediation plan", "state_key": "active",
                                  "description": "Re-screen, re-rate and refresh KYC for "
                                                 "the whole customer book."}, True),
    "output_bra": (K.OUTPUT, {"name": "Business risk assessment 2026",
                              "state_key": "published"}, True),
    "output_mlro_report": (K.OUTPUT, {"name": "Annual MLRO report", "state_key": "draft"},
                           False),
}
_EDGES: tuple[tuple[str, str, str], ...] = (
    ("task_rescreen", "supports_goal", "goal_cdd"), ("task_rescreen", "depends_on",
                                                      "task_vendor"),
    ("task_edd_proc", "supports_goal", "goal_cdd"), ("task_bra", "supports_goal", "goal_cdd"),
    ("task_triage", "supports_goal", "goal_str"), ("task_triage", "depends_on", "task_hire"),
    ("task_hire", "supports_goal", "goal_str"),
    ("plan_remediation", "has_task", "task_rescreen"),
    ("plan_remediation", "has_task", "task_edd_proc"),
    ("plan_remediation", "supports_goal", "goal_cdd"),
    ("goal_cdd", "has_milestone", "ms_screening"), ("goal_cdd", "has_milestone", "ms_bra"),
    ("task_rescreen", "targets_milestone", "ms_screening"),
    ("risk_pep", "threatens", "goal_cdd"), ("risk_backlog", "threatens", "goal_str"),
    ("task_rescreen", "mitigates", "risk_pep"), ("task_archive", "mitigates", "risk_records"),
    ("task_retention", "addresses", "req_records"),
    ("task_bra", "addresses", "req_ra"), ("task_edd_proc", "addresses", "req_edd"),
    ("decision_rba", "addresses", "req_edd"), ("decision_mlro", "addresses", "req_str"),
    ("decision_rba", "informs", "plan_remediation"), ("task_bra", "produces", "output_bra"),
    ("output_bra", "addresses", "req_ra"), ("output_bra", "supports_goal", "goal_cdd"),
)


def _dated(fields: dict[str, Any], now: datetime) -> dict[str, Any]:
    out = dict(fields)
    for key in ("target_date", "due_at", "completed_at", "decision_at"):
        if isinstance(out.get(key), int):
            out[key] = now + timedelta(days=out[key])
    return out


async def seed_demo_project(service: OntologyService, tenant_id: UUID, *,
                            regulation_ids: Sequence[UUID] = (),
                            now: datetime | None = None,
                            created_by: UUID | None = None) -> dict[str, Entity]:
    """Create the demo project; returns its entities by key ("project", "goal_cdd", …).
    Each regulation id becomes a project document that the requirements reference."""
    now = now or datetime.now(UTC)
    project = await service.create_project(tenant_id, {
        "name": DEMO_PROJECT_NAME, "type_key": "project.compliance.programme",
        "description": "Bring the firm's anti-money-laundering controls in line with the "
                       "regulator's rulebook before the 2026 thematic review.",
        "facet_context": "regulatory", "facet_scale": "large", "facet_stage": "execution",
        "start_at": now - timedelta(days=60), "end_at": now + timedelta(days=240),
        "next_step_short": "Unblock the PEP re-screening (vendor contract).",
        "next_step_long": "Sign the RCA data feed contract, then re-screen the customer book "
                          "and clear the monitoring alert backlog before the thematic review.",
        "props": {"owner": "Head of Compliance", "jurisdiction": "ADGM"}},
        created_by=created_by)
    made: dict[str, Entity] = {"project": project}
    for key, (kind, fields, direct) in _ENTITIES.items():
        made[key] = await service.create_entity(tenant_id, project.id, kind,
                                                _dated(fields, now), link_to_project=direct,
                                                created_by=created_by)
    for src, rel, dst in _EDGES:
        await service.link(tenant_id, made[src].id, rel, made[dst].id)
    for i, regulation_id in enumerate(regulation_ids):
        title = await service.store.library_title(tenant_id, regulation_id) or f"Regulation {i}"
        doc = await service.create_entity(tenant_id, project.id, EntityKind.DOCUMENT, {
            "title": title, "document_id": regulation_id, "type_key": "document.regulation",
            "state_key": "active"}, created_by=created_by)
        made[f"document_{i}"] = doc
        for req in ("req_ra", "req_edd", "req_str", "req_records"):
            await service.link(tenant_id, made[req].id, "references", doc.id)
    return made
