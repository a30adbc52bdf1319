"""``regintel bench scenarios``: whether answers are ones a compliance officer can act on
(issue 35, Done-when 2 and 3), measured on the scenario sets in ``bench/data``.

Every answer scenario runs as a real conversation through ``ChatService`` (the offline engine,
or the configured model when ``REGINTEL_LLM__BASE_URL`` is set) on the demo corpus plus COBS
(``bench.scenario_corpus``). Its last turn passes when its action is the expected one and the
first sentence of its answer cites - through an ``[n]`` marker, that citation's document and
clause - one of the expected rules (``bench.scenario_data`` says how rules match). The line
naming the documents the copilot inferred ("Analyzing <titles>.", a paragraph of its own) is
not the answer's first sentence: the one after it is. A scenario may also expect the answer to
say something (``expect_says``, e.g. "not in your library" for a question naming a rulebook the
library does not hold): then it passes when its action is the expected one and its answer's
first paragraph contains that phrase (case-insensitive) - and, when it expects rules too, its
first sentence cites one of them; a scenario expecting no rule is scored on the phrase alone.
Beside the pass, two diagnostics say where a failing answer went wrong: whether its first
``[n]`` marker anywhere cites an expected rule (an answer opening with a lead-in sentence of
its own), and whether any citation does (retrieval found the rule at all); these and the
share leading with a rule are taken over the scenarios that expect rules. Every turn
of these scenarios is a plain question, so one routed to an audit is counted apart: it must
be none.

Every text check runs as one audit turn, the way a user pastes an email into the chat box:
"Check this email against @AML: <text>" with that document tagged. A breaching text should get
a finding on a rule one of its breaches violates; a compliant text should get none; and no
verdict may call a text compliant (an audit proves what it found, not that nothing else is
wrong).

Held-out scenarios are scored with the others but their one-line results are not shown
unless asked for (``show_heldout``): the figures may be read while building, the texts not.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from regintel.bench.audit import overlaps
from regintel.bench.scenario_corpus import ScenarioCorpus, ingest
from regintel.bench.scenario_data import (
    AnswerScenario,
    TextCheck,
    load_answer_scenarios,
    load_text_checks,
    parse_rule,
    rule_matches,
)
from regintel.chat.service import ChatService
from regintel.container import Container
from regintel.domain.chat import Action, ChatRequest, ChatResponse, Citation
from regintel.sentences import sentence_spans

TENANT = "bench-scenarios"
SPLIT_CHOICES = ("dev", "heldout", "all")
SPLITS: tuple[Literal["dev", "heldout"], ...] = ("dev", "heldout")
_MARKER = re.compile(r"\[(\d{1,3})\]")
_TRAILING_MARKERS = re.compile(r"(?:\s*\[\d{1,3}\])+")
_CLOSING_MARKERS = re.compile(r"(?:\s*\[\d{1,3}\])+\.?")
# "compliant" as a verdict: not "non-compliant", "not compliant", "compliance".
_CALLED_COMPLIANT = re.compile(r"(?<![-\w])(?<!not )(?<!never )compliant\b", re.I)
_VERDICT_SENTENCES = 2
_NOTICE_VERBS = ("Analyzing", "Summarizing", "Comparing")
_HEADINGS = re.compile(r"\A(?:#{1,6} [^\n]*\n+)+")


async def run(container: Container, shared_data: Path, *, split: str = "dev",
              answers_file: Path | None = None, texts_file: Path | None = None,
              show_heldout: bool = False) -> dict[str, Any]:
    if split not in SPLIT_CHOICES:
        raise ValueError(f"split must be one of {', '.join(SPLIT_CHOICES)}, not {split!r}")
    scenarios = [s for s in (load_answer_scenarios(answers_file) if answers_file
                             else load_answer_scenarios()) if _chosen(s["split"], split)]
    texts = [t for t in (load_text_checks(texts_file) if texts_file else load_text_checks())
             if _chosen(t["split"], split)]
    started = time.perf_counter()
    corpus = await ingest(container, TENANT, shared_data)
    ingest_s = time.perf_counter() - started
    chat = await container.chat()
    started = time.perf_counter()
    answers = [await answer_scenario(chat, corpus, s) for s in scenarios]
    answers_s = time.perf_counter() - started
    started = time.perf_counter()
    checks = [await text_check(chat, corpus, t) for t in texts]
    texts_s = time.perf_counter() - started
    engines = sorted({r["engine"] for r in (*answers, *checks)})
    return {
        "split": split,
        "engine": ", ".join(engines) or "none",
        "corpus": {key: d.title for key, d in corpus.documents.items()},
        "answers": {
            "by_split": {name: answer_figures(rows) for name, rows in _by_split(answers)},
            "plain_routed_to_audit": sum(r["turns_audited"] for r in answers),
            "results": _shown(answers, show_heldout),
        },
        "texts": {
            "by_split": {name: text_figures(rows) for name, rows in _by_split(checks)},
            "results": _shown(checks, show_heldout),
        },
        "seconds": {"ingest": round(ingest_s, 1), "answers": round(answers_s, 1),
                    "texts": round(texts_s, 1)},
    }


def _chosen(scenario_split: str, split: str) -> bool:
    return split == "all" or scenario_split == split


# -- answer scenarios -----------------------------------------------------------------------
async def answer_scenario(chat: ChatService, corpus: ScenarioCorpus,
                          scenario: AnswerScenario) -> dict[str, Any]:
    """Run the scenario's turns as one conversation and score its last turn."""
    tags = tuple(corpus.documents[key].id for key in scenario["tags"])
    thread = None
    audited = 0
    response: ChatResponse | None = None
    for i, turn in enumerate(scenario["turns"]):
        response = await chat.ask(corpus.tenant_id, ChatRequest(
            message=turn, thread_id=thread, tagged_doc_ids=tags if i == 0 else ()))
        thread = response.thread_id
        audited += response.action is Action.AUDIT
    assert response is not None
    return score_answer(scenario, response, corpus) | {"turns_audited": audited}


def score_answer(scenario: AnswerScenario, response: ChatResponse,
                 corpus: ScenarioCorpus) -> dict[str, Any]:
    rules = [parse_rule(r, scenario["document"]) for r in scenario["expect_rules"]]
    body = answer_body(response)
    lead = list(_cited(first_sentence(body), response.citations))
    first = next(iter(_cited(_first_marker(body), response.citations)), None)

    def expected(citation: Citation) -> bool:
        key = corpus.key_of(citation.document_id)
        return any(key == r.document and rule_matches(citation.clause, r.clause) for r in rules)

    action = response.action.value if response.action else None
    action_ok = action == scenario["expect_action"]
    leads = any(expected(c) for c in lead)
    says = scenario.get("expect_says")
    says_ok = None if says is None else says.casefold() in first_paragraph(body).casefold()
    return {
        "id": scenario["id"], "split": scenario["split"], "kinds": scenario["kinds"],
        "engine": response.engine.value,
        "action": action or "none",
        "asked": response.needs_input.kind if response.needs_input else None,
        "expected_action": scenario["expect_action"],
        "action_ok": action_ok,
        "leads_with_rule": leads,
        "first_citation_is_rule": first is not None and expected(first),
        "cites_rule": any(expected(c) for c in response.citations),
        "lead_cites": [f"{corpus.key_of(c.document_id) or c.title} {c.clause or '?'}"
                       for c in lead],
        "first_cites": (f"{corpus.key_of(first.document_id) or first.title} "
                        f"{first.clause or '?'}") if first else None,
        "expected": scenario["expect_rules"],
        "expected_says": says,
        "says_ok": says_ok,
        "confidence": response.confidence.tier if response.confidence else None,
        "passed": action_ok and (leads or not rules) and says_ok is not False,
    }


def answer_body(response: ChatResponse) -> str:
    """The answer without the notice that opens it when its documents were inferred
    ("Analyzing <titles>." - the spec's line saying which documents the copilot chose, a
    paragraph of its own): the answer proper starts after it, and after the Markdown heading
    lines that open a summary's section ("## <title>"), which name and do not say."""
    titles = " and ".join(d.title for d in response.resolved_documents)
    body = response.answer
    for verb in _NOTICE_VERBS:
        notice = f"{verb} {titles}.\n\n"
        if titles and body.startswith(notice):
            body = body[len(notice):]
            break
    return _HEADINGS.sub("", body)


def first_paragraph(answer: str) -> str:
    """The answer's first paragraph: up to its first blank line."""
    return answer.strip().split("\n\n", 1)[0]


def first_sentence(answer: str) -> str:
    """The answer's lead: its first paragraph up to the citation markers that close its first
    cited statement ("Under AML, 10.2.1: A firm must: (a) …; and (b) …. [1]" is one statement,
    its list included: a sentence splitter would cut it at the list's first item); else its
    first sentence, with the markers right after its full stop."""
    paragraph = first_paragraph(answer)
    marked = _MARKER.search(paragraph)
    if marked:
        trailing = _CLOSING_MARKERS.match(paragraph, marked.start())
        return paragraph[:trailing.end() if trailing else marked.end()]
    spans = sentence_spans(answer)
    if not spans:
        return ""
    end = spans[0][1]
    trailing = _TRAILING_MARKERS.match(answer, end)
    return answer[spans[0][0]:trailing.end() if trailing else end]


def _first_marker(text: str) -> str:
    found = _MARKER.search(text)
    return found[0] if found else ""


def _cited(sentence: str, citations: Sequence[Citation]) -> Iterable[Citation]:
    numbers = {int(n) for n in _MARKER.findall(sentence)}
    return (c for c in citations if c.n in numbers)


def answer_figures(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    ruled = [r for r in rows if r["expected"]]  # a scenario expecting no rule leads with none
    saying = [r for r in rows if r["says_ok"] is not None]
    return {
        "scenarios": n,
        "passed": sum(r["passed"] for r in rows),
        "pass_rate": _share(sum(r["passed"] for r in rows), n),
        "action_ok": _share(sum(r["action_ok"] for r in rows), n),
        "leads_with_rule": _share(sum(r["leads_with_rule"] for r in ruled), len(ruled)),
        "first_citation_is_rule": _share(sum(r["first_citation_is_rule"] for r in ruled),
                                         len(ruled)),
        "cites_rule_anywhere": _share(sum(r["cites_rule"] for r in ruled), len(ruled)),
        "says_expected": _share(sum(r["says_ok"] for r in saying), len(saying)),
        "high_confidence": _share(sum(r["confidence"] == "high" for r in rows), n),
        "asked_back": sum(r["asked"] is not None for r in rows),
        "follow_up_pass_rate": _share(sum(r["passed"] for r in rows if "follow-up" in r["kinds"]),
                                      sum("follow-up" in r["kinds"] for r in rows)),
    }


# -- text checks ----------------------------------------------------------------------------
async def text_check(chat: ChatService, corpus: ScenarioCorpus,
                     check: TextCheck) -> dict[str, Any]:
    """One audit turn on the pasted text, scored."""
    target = corpus.documents[check["target"]]
    response = await chat.ask(corpus.tenant_id, ChatRequest(
        message=f"Check this email against @{check['target']}: {check['text']}",
        tagged_doc_ids=(target.id,)))
    return score_text(check, response, corpus)


def score_text(check: TextCheck, response: ChatResponse,
               corpus: ScenarioCorpus) -> dict[str, Any]:
    audit = response.audit
    target_id = corpus.documents[check["target"]].id
    findings = audit.findings if audit else []
    clauses = [f.target_clause for f in findings if f.target_doc_id == target_id]
    found = [b["what"] for b in check["breaches"]
             if any(rule_matches(clause, parse_rule(rule, check["target"]).clause)
                    for rule in b["rules"] for clause in clauses)]
    right = [c for c in clauses if any(rule_matches(c, parse_rule(rule, check["target"]).clause)
                                       for b in check["breaches"] for rule in b["rules"])]
    flags = audit.flagged if audit else []
    flagged = [b["what"] for b in check["breaches"] if b.get("sentence") and any(
        overlaps(f.sentence, b["sentence"]) and any(
            r.target_doc_id == target_id and rule_matches(
                r.rule, parse_rule(rule, check["target"]).clause)
            for r in f.rules for rule in b["rules"]) for f in flags)]
    verdict = " ".join([audit.overall_status if audit else "",
                        *_sentences(response.answer, _VERDICT_SENTENCES)])
    return {
        "id": check["id"], "split": check["split"], "engine": response.engine.value,
        "compliant": check["compliant"], "subtle": check["subtle"],
        "audited": response.action is Action.AUDIT and audit is not None,
        "status": audit.overall_status if audit else (
            "asked:" + response.needs_input.kind if response.needs_input else "no audit"),
        "findings": len(findings),
        "finding_clauses": [c or "?" for c in clauses],
        "breaches": len(check["breaches"]),
        "breaches_found": len(found),
        "findings_right": len(right),
        "flags": len(flags),
        "breaches_flagged": len(flagged),
        "called_compliant": bool(_CALLED_COMPLIANT.search(verdict)),
    }


def _sentences(text: str, n: int) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)[:n]]


def text_figures(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    breaching = [r for r in rows if not r["compliant"]]
    compliant = [r for r in rows if r["compliant"]]
    hit = sum(r["breaches_found"] > 0 for r in breaching)
    subtle = [r for r in breaching if r["subtle"]]
    clean = sum(r["audited"] and r["findings"] == 0 for r in compliant)
    return {
        "texts": len(rows),
        "not_audited": sum(not r["audited"] for r in rows),
        "breaching": len(breaching),
        "breaching_with_expected_finding": hit,
        "breaching_share": _share(hit, len(breaching)),
        "breaches_found": f"{sum(r['breaches_found'] for r in breaching)} of "
                          f"{sum(r['breaches'] for r in breaching)}",
        "subtle_with_expected_finding":
            f"{sum(r['breaches_found'] > 0 for r in subtle)} of {len(subtle)}",
        "called_compliant": sum(r["called_compliant"] for r in rows),
        "compliant": len(compliant),
        "compliant_without_finding": clean,
        "compliant_share": _share(clean, len(compliant)),
        "findings_on_compliant": sum(r["findings"] for r in compliant),
        # Issue 47: each breach's sentence flagged with one of its rules among the top 3;
        # asserted findings' precision over every text.
        "breaches_flagged": f"{sum(r['breaches_flagged'] for r in breaching)} of "
                            f"{sum(r['breaches'] for r in breaching)}",
        "flagged_share": _share(sum(r["breaches_flagged"] for r in breaching),
                                sum(r["breaches"] for r in breaching)),
        "finding_precision": _share(sum(r["findings_right"] for r in rows),
                                    sum(r["findings"] for r in rows)),
    }


# -- shared -----------------------------------------------------------------------------------
def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def _by_split(rows: Sequence[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    groups: list[tuple[str, list[dict[str, Any]]]] = [
        (name, [r for r in rows if r["split"] == name]) for name in SPLITS]
    present = [(name, group) for name, group in groups if group]
    return [*present, ("all", list(rows))] if len(present) > 1 else present


def _shown(rows: Sequence[dict[str, Any]], show_heldout: bool) -> list[dict[str, Any]]:
    return [r for r in rows if show_heldout or r["split"] != "heldout"]


def table_rows(figures: dict[str, Any]) -> dict[str, list[list[Any]]]:
    """The summary per split, and one line per shown scenario and text."""
    answers, texts = figures["answers"], figures["texts"]
    summary = [[name, f["scenarios"], f"{f['passed']} ({f['pass_rate']})", f["action_ok"],
                f["leads_with_rule"], f["first_citation_is_rule"], f["cites_rule_anywhere"],
                f["high_confidence"],
                f["asked_back"], f["follow_up_pass_rate"]]
               for name, f in answers["by_split"].items()]
    text_summary = [[name, f["texts"], f"{f['breaching_with_expected_finding']} of "
                     f"{f['breaching']} ({f['breaching_share']})", f["breaches_found"],
                     f["subtle_with_expected_finding"],
                     f"{f['compliant_without_finding']} of {f['compliant']} "
                     f"({f['compliant_share']})", f["called_compliant"], f["not_audited"]]
                    for name, f in texts["by_split"].items()]
    lines = [["PASS" if r["passed"] else "fail", r["id"], r["split"],
              r["action"] + ("" if r["action_ok"] else f" (want {r['expected_action']})")
              + (f", asked {r['asked']}" if r["asked"] else ""),
              ", ".join(r["lead_cites"]) or "-", r["first_cites"] or "-",
              ", ".join([*r["expected"], *([f'says "{r["expected_says"]}"']
                                          if r["expected_says"] else [])]),
              r["confidence"] or "-"] for r in answers["results"]]
    text_lines = [[_text_outcome(r), r["id"], r["split"], r["status"], r["findings"],
                   ", ".join(r["finding_clauses"][:6]) or "-"] for r in texts["results"]]
    return {"summary": summary, "text_summary": text_summary, "lines": lines,
            "text_lines": text_lines}


def _text_outcome(row: dict[str, Any]) -> str:
    if not row["audited"] or row["called_compliant"]:
        return "fail"
    if row["compliant"]:
        return "PASS" if row["findings"] == 0 else "fail"
    return "PASS" if row["breaches_found"] else "fail"
