"""The scenario sets of ``regintel bench scenarios`` checked against their own rules and
against the source texts: every expected rule is a clause the document really has."""

from __future__ import annotations

import uuid
from collections import Counter
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import pytest

from regintel.bench.scenario_corpus import ScenarioCorpus
from regintel.bench.scenario_data import (
    DOCUMENT_KEYS,
    AnswerScenario,
    TextCheck,
    load_answer_scenarios,
    load_text_checks,
    parse_rule,
    rule_matches,
    split_of,
)
from regintel.bench.scenarios import answer_figures, first_sentence, score_answer
from regintel.chat import pasted
from regintel.demo.corpus import gdpr_markdown
from regintel.domain.chat import Action, ChatResponse, Citation, ResolvedDocument
from regintel.domain.documents import DocStatus, DocType, Document
from regintel.ingestion import find_clauses

SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data"
RULEBOOKS = SHARED / "obliqa" / "rulebooks_txt"
SOURCES = {"AML": RULEBOOKS / "AML_VER09.211223.txt", "GEN": RULEBOOKS / "GEN_VER08.181223.txt",
           "COBS": RULEBOOKS / "COBS_VER15.150823.txt",
           "GDPR": SHARED / "regulations" / "gdpr_articles.jsonl"}
needs_sources = pytest.mark.skipif(
    not all(p.is_file() for p in SOURCES.values()),
    reason=f"the ADGM rulebooks or the GDPR not found under {SHARED} (shared data set)")

SCENARIOS = load_answer_scenarios()
TEXTS = load_text_checks()


@cache
def clause_labels(key: str) -> frozenset[str]:
    path = SOURCES[key]
    text = gdpr_markdown(path) if key == "GDPR" else path.read_text(encoding="utf-8-sig")
    return frozenset(label for _, label in find_clauses(text.replace("\r\n", "\n")))


def exists(key: str, rule: str) -> bool:
    return any(rule_matches(label, rule) for label in clause_labels(key))


@pytest.mark.parametrize("items", [SCENARIOS, TEXTS], ids=["answers", "texts"])
def test_ids_are_unique_and_a_third_is_held_out_by_the_stated_rule(
        items: list[AnswerScenario] | list[TextCheck]) -> None:
    ids = [item["id"] for item in items]
    assert len(ids) == len(set(ids))
    assert all(item["split"] == split_of(item["id"]) for item in items)
    # The hash decides each split: at least a third held out (more is kept, never renamed away).
    assert Counter(item["split"] for item in items)["heldout"] * 3 >= len(items)


def test_answer_scenarios_cover_what_the_issue_asks() -> None:
    assert len(SCENARIOS) >= 42
    for s in SCENARIOS:
        assert 1 <= len(s["turns"]) <= 3 and all(t.strip() for t in s["turns"]), s["id"]
        assert s["expect_action"] in ("inquire", "summarize", "compare"), s["id"]
        assert s["document"] in DOCUMENT_KEYS and set(s["tags"]) <= set(DOCUMENT_KEYS)
        assert s["expect_rules"] or s.get("expect_says"), s["id"]
    threads = [s for s in SCENARIOS if len(s["turns"]) > 1]
    assert len(threads) >= 8
    # A follow-up is short and leans on what came before.
    assert all(len(t.split()) <= 15 for s in threads for t in s["turns"][1:])
    kinds = Counter(k for s in SCENARIOS for k in s["kinds"])
    assert all(kinds[k] >= 4 for k in ("abbreviation", "comply", "named-document", "summary",
                                       "comparison", "follow-up")), kinds
    assert Counter(s["document"] for s in SCENARIOS).keys() == set(DOCUMENT_KEYS)
    assert {s["expect_action"] for s in SCENARIOS if "summary" in s["kinds"]} == {"summarize"}
    assert {s["expect_action"] for s in SCENARIOS if "comparison" in s["kinds"]} == {"compare"}


def test_answer_scenarios_cover_issue_49() -> None:
    kinds = Counter(k for s in SCENARIOS for k in s["kinds"])
    assert kinds["answer-type"] >= 6 and kinds["follow-up"] >= 5, kinds
    absent = [s for s in SCENARIOS if "names-not-in-library" in s["kinds"]]
    assert len(absent) >= 4
    # A rulebook the library does not hold: no rule to lead with, the answer must say so.
    assert all(s["expect_rules"] == [] and s.get("expect_says") == "not in your library"
               for s in absent)
    # Slash-joined abbreviations ("SAR/STR", "KYC/CDD") that name no document.
    assert sum("abbreviation" in s["kinds"] and "/" in s["turns"][-1] and bool(s["expect_rules"])
               for s in SCENARIOS) >= 4


def test_text_checks_are_half_breaching_and_pasteable() -> None:
    assert len(TEXTS) >= 20
    breaching = [t for t in TEXTS if not t["compliant"]]
    assert len(breaching) * 2 == len(TEXTS)
    assert sum(t["subtle"] for t in breaching) >= 4
    for t in TEXTS:
        assert t["target"] in ("AML", "GDPR"), t["id"]
        assert bool(t["breaches"]) is not t["compliant"], t["id"]
        assert all(b["what"] and b["rules"] for b in t["breaches"]), t["id"]
        # The bench pastes it after an instruction: the chat must take it as text to audit.
        message = f"Check this email against @{t['target']}: {t['text']}"
        assert pasted.split(message) == (f"Check this email against @{t['target']}",
                                         t["text"]), t["id"]


@needs_sources
def test_every_expected_rule_is_a_clause_of_its_document() -> None:
    missing = [(s["id"], entry) for s in SCENARIOS for entry in s["expect_rules"]
               if not exists(*_key_and_clause(entry, s["document"]))]
    missing += [(t["id"], rule) for t in TEXTS for b in t["breaches"] for rule in b["rules"]
                if not exists(*_key_and_clause(rule, t["target"]))]
    assert not missing


def _key_and_clause(entry: str, default: str) -> tuple[str, str]:
    rule = parse_rule(entry, default)
    return rule.document, rule.clause


@pytest.mark.parametrize(("clause", "rule", "expected"), [
    ("14.2.2", "14.2.2", True),
    ("14.2.2.(1)", "14.2.2", True),
    ("8.1.1.(3)", "8.1.1.(3)", True),
    ("\u200e8.4.1", "8.4.1", True),
    ("Article 35", "Art. 35", True),
    ("Article 35", "Article 35", True),
    ("Article 3", "Art. 35", False),
    ("Article 35", "Art. 3", False),
    ("14.2.21", "14.2.2", False),
    ("14.2", "14.2.2", False),
    ("8.4.1.Guidance.2", "8.4.1", False),
    ("7.2.12", "7.2", True),
    (None, "7.2", False),
])
def test_a_rule_matches_its_clause_and_items_not_its_guidance(clause: str | None, rule: str,
                                                              expected: bool) -> None:
    assert rule_matches(clause, rule) is expected


def test_a_rule_may_name_its_document() -> None:
    assert parse_rule("GEN 5.5.2", "AML").document == "GEN"
    assert parse_rule("5.5.2", "AML").document == "AML"
    assert parse_rule("GDPR Art. 5", "AML").clause == "Article 5"


@pytest.mark.parametrize(("answer", "first"), [
    ("Records must be kept for six years [1]. Training records too [2].",
     "Records must be kept for six years [1]."),
    ("Under Rule 8.4.1 senior management must approve. [2][3] Then monitor.",
     "Under Rule 8.4.1 senior management must approve. [2][3]"),
    ("", ""),
    # A provision led with its list is one statement: not cut at its first item.
    ("Under AML, 10.2.1: A bank must: (a) assess; and (b) gather information. [1]\n\n- More [2]",
     "Under AML, 10.2.1: A bank must: (a) assess; and (b) gather information. [1]"),
])
def test_the_first_sentence_keeps_the_markers_after_its_full_stop(answer: str,
                                                                 first: str) -> None:
    assert first_sentence(answer) == first


# -- scoring the last turn ------------------------------------------------------------------
def _document(title: str) -> Document:
    return Document(id=uuid.uuid4(), title=title, version="", doc_type=DocType.REGULATION,
                    status=DocStatus.READY, original_filename="doc.txt", mime_type="text/plain",
                    size_bytes=1, created_at=datetime.now(UTC), content_hash="0" * 64,
                    file_path="doc.txt")


CORPUS = ScenarioCorpus(uuid.uuid4(), {"AML": _document("ADGM AML Rulebook (AML)"),
                                       "COBS": _document("ADGM COBS Rulebook (COBS)")})


def _scenario(rules: list[str], says: str | None = None,
              document: str = "AML") -> AnswerScenario:
    scenario = AnswerScenario(id="s", split="dev", turns=["q"], tags=[], document=document,
                              expect_rules=rules, expect_action="inquire", kinds=[])
    if says is not None:
        scenario["expect_says"] = says
    return scenario


def _response(answer: str, *clauses: str, action: Action | None = Action.INQUIRE,
              resolved: tuple[str, ...] = ()) -> ChatResponse:
    aml = CORPUS.documents["AML"]
    return ChatResponse(
        thread_id=uuid.uuid4(), action=action, answer=answer,
        citations=[Citation(n=i, document_id=aml.id, title=aml.title, clause=clause, quote="q")
                   for i, clause in enumerate(clauses, 1)],
        resolved_documents=[ResolvedDocument(id=CORPUS.documents[key].id,
                                             title=CORPUS.documents[key].title, how="inferred")
                            for key in resolved])


def test_a_scenario_without_expect_says_passes_on_its_leading_rule() -> None:
    row = score_answer(_scenario(["14.3.1"]), _response("The MLRO must file [1].", "14.3.1"),
                       CORPUS)
    assert row["passed"] and row["leads_with_rule"] and row["says_ok"] is None
    row = score_answer(_scenario(["14.3.1"]), _response("The MLRO must file [1].", "14.2.2"),
                       CORPUS)
    assert not row["passed"] and row["says_ok"] is None


@pytest.mark.parametrize(("answer", "action", "passed"), [
    ("MiFID II is not in your library. It holds COBS, whose 6.5.2 covers best execution [1].",
     Action.INQUIRE, True),
    ("MiFID II is NOT IN YOUR LIBRARY.", Action.INQUIRE, True),
    # Said, but not in the first paragraph: an officer reads the rule as the answer first.
    ("Under COBS 6.5.2 a firm must provide best execution [1].\n\nMiFID II is not in your "
     "library.", Action.INQUIRE, False),
    ("MiFID II is not in your library.", Action.SUMMARIZE, False),
    ("MiFID II is not in your library.", None, False),
    ("Best execution is not covered.", Action.INQUIRE, False),
])
def test_a_scenario_expecting_no_rule_is_scored_on_what_it_says(answer: str,
                                                                 action: Action | None,
                                                                 passed: bool) -> None:
    row = score_answer(_scenario([], "not in your library", "COBS"),
                       _response(answer, "6.5.2", action=action), CORPUS)
    assert row["passed"] is passed
    assert row["says_ok"] is ("not in your library" in answer.split("\n\n")[0].lower())
    assert row["expected_says"] == "not in your library"


def test_the_phrase_is_looked_for_after_the_notice_of_inferred_documents() -> None:
    title = CORPUS.documents["AML"].title
    row = score_answer(_scenario([], "not in your library"),
                       _response(f"Analyzing {title}.\n\nThe UK MLR 2017 are not in your "
                                 "library.", resolved=("AML",)), CORPUS)
    assert row["passed"] and row["says_ok"]


@pytest.mark.parametrize(("answer", "clause", "passed"), [
    ("The MLR 2017 are not in your library; under AML 14.3.1 the MLRO must file [1].",
     "14.3.1", True),
    ("The MLR 2017 are not in your library; under AML the MLRO must file [1].", "8.4.1", False),
    ("Under AML 14.3.1 the MLRO must file [1].", "14.3.1", False),
])
def test_a_scenario_expecting_rules_and_a_phrase_needs_both(answer: str, clause: str,
                                                            passed: bool) -> None:
    row = score_answer(_scenario(["14.3.1"], "not in your library"), _response(answer, clause),
                       CORPUS)
    assert row["passed"] is passed


def test_rule_diagnostics_are_taken_over_the_scenarios_that_expect_rules() -> None:
    rows = [score_answer(_scenario(["14.3.1"]), _response("File [1].", "14.3.1"), CORPUS),
            score_answer(_scenario([], "not in your library"),
                         _response("DORA is not in your library."), CORPUS),
            score_answer(_scenario([], "not in your library"),
                         _response("DORA requires reporting."), CORPUS)]
    figures = answer_figures(rows)
    assert figures["passed"] == 2 and figures["pass_rate"] == 0.667
    assert figures["leads_with_rule"] == 1.0 and figures["cites_rule_anywhere"] == 1.0
    assert figures["says_expected"] == 0.5
