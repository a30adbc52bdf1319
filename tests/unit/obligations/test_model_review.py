"""A model's proposals on the review queue: verified against the candidates, labelled, and
the engine's proposal kept when the model fails or runs out of time."""

from __future__ import annotations

from uuid import uuid4

from regintel.chat.llm.fake import Pause, ScriptedChatModel, json_reply
from regintel.domain.coverage import CoverageRow, ObligationRow, PolicyQuote
from regintel.obligations.model_review import applied, propose

DOC = uuid4()


def _row(rule: str, *quotes: str) -> CoverageRow:
    o = ObligationRow(id=uuid4(), document_id=DOC, rule=rule, text=f"Rule {rule} applies.",
                      modal="must", strength="mandatory")
    return CoverageRow(obligation=o, status="missing", reason="engine reason",
                       policy_quotes=tuple(PolicyQuote(document_id=DOC, chunk_id=uuid4(),
                                                       quote=q) for q in quotes))


def test_a_proposal_needs_its_words_in_the_candidate_it_names() -> None:
    rows = [_row("1.1", "Records are kept for six years."), _row("1.2", "Staff are trained.")]
    out = applied(rows, {"rows": [
        {"row": 1, "status": "met", "candidate": 1, "quote": "kept for six  years",
         "reason": "Same period."},
        {"row": 2, "status": "contradicted", "candidate": 1, "quote": "never trained",
         "reason": "x"},
        {"row": 7, "status": "met", "reason": "no such row"}]}, "m")
    assert (out[0].proposed, out[0].proposed_by) == ("met", "model: m")
    assert "kept for six years" in out[0].reason and out[0].review == "review"
    assert out[1] == rows[1]  # an invented quote drops the proposal


def test_a_claim_about_the_policy_needs_a_clause() -> None:
    [row] = applied([_row("2.1", "A clause.")], {"rows": [
        {"row": 1, "status": "met", "candidate": None, "reason": "trust me"}]}, "m")
    assert row.proposed_by == "engine"
    [gap] = applied([_row("2.2")], {"rows": [
        {"row": 1, "status": "missing", "candidate": None, "reason": "Nothing close."}]}, "m")
    assert gap.proposed == "missing" and gap.proposed_by == "model: m"


async def test_a_slow_model_leaves_the_engines_proposals() -> None:
    rows = [_row("3.1", "A clause.")]
    slow = ScriptedChatModel([[Pause(2.0), *json_reply({"rows": []})]])
    assert await propose(slow, rows, timeout_s=0.2) == rows
