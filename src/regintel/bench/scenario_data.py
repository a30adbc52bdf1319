"""The measured scenario sets of issue 35 (``bench/data/answer_scenarios.json`` and
``bench/data/text_checks.json``): loading, the held-out rule, and how an expected rule is
read and matched against a citation's clause. A scenario may instead, or as well, expect
its answer to say a phrase (``expect_says``): ``bench.scenarios`` says how it is scored.

An expected rule is a clause number of the scenario's document ("8.4.1", "8.1.1.(3)",
"Art. 35"), or of another document when it names one first ("GEN 5.5.2", "GDPR Art. 5"). It
matches a clause that is the rule or an item of it: "14.2.2" matches "14.2.2" and
"14.2.2.(1)", "8.1.1.(3)" matches "8.1.1.(3)(a)", "Art. 35" matches "Article 35". Guidance
under a rule ("8.4.1.Guidance.2") is not the rule: an answer a compliance officer can act on
leads with the requirement itself."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NotRequired, TypedDict

DATA_DIR = Path(__file__).with_name("data")
ANSWER_SCENARIOS = DATA_DIR / "answer_scenarios.json"
TEXT_CHECKS = DATA_DIR / "text_checks.json"
DOCUMENT_KEYS = ("AML", "GEN", "COBS", "GDPR")
Split = Literal["dev", "heldout"]
ExpectedAction = Literal["inquire", "summarize", "compare"]

_MARKS = re.compile("[\u200e\u200f\u202a-\u202e]")
_ARTICLE = re.compile(r"^(?:art(?:icle)?s?\.?)\s*(\d{1,3})\b(.*)$", re.I)


class AnswerScenario(TypedDict):
    id: str
    split: Split
    turns: list[str]
    tags: list[str]
    document: str
    expect_rules: list[str]
    expect_action: ExpectedAction
    kinds: list[str]
    # A phrase the answer's first paragraph must contain (case-insensitive), e.g. "not in your
    # library" for a question naming a rulebook the library does not hold (expect_rules [])
    expect_says: NotRequired[str]


class Breach(TypedDict):
    what: str
    rules: list[str]
    sentence: NotRequired[str]  # the text's sentence that carries it, verbatim


class TextCheck(TypedDict):
    id: str
    split: Split
    target: str
    text: str
    compliant: bool
    subtle: bool
    breaches: list[Breach]


def split_of(scenario_id: str) -> Split:
    """The fixed held-out rule both files state: a third of the ids by their SHA-256."""
    digest = hashlib.sha256(scenario_id.encode("utf-8")).hexdigest()
    return "heldout" if int(digest, 16) % 3 == 0 else "dev"


def load_answer_scenarios(path: Path = ANSWER_SCENARIOS) -> list[AnswerScenario]:
    scenarios: list[AnswerScenario] = json.loads(path.read_text(encoding="utf-8"))["scenarios"]
    return scenarios


def load_text_checks(path: Path = TEXT_CHECKS) -> list[TextCheck]:
    texts: list[TextCheck] = json.loads(path.read_text(encoding="utf-8"))["texts"]
    return texts


@dataclass(frozen=True)
class Rule:
    document: str  # a key of DOCUMENT_KEYS
    clause: str  # normalised: "8.4.1", "Article 35"


def parse_rule(entry: str, default_document: str) -> Rule:
    """"8.4.1" of ``default_document``; "GEN 5.5.2" of GEN; "Art. 35" → "Article 35"."""
    head, _, rest = entry.strip().partition(" ")
    if head in DOCUMENT_KEYS and rest:
        return Rule(head, normalise(rest))
    return Rule(default_document, normalise(entry))


def normalise(clause: str) -> str:
    """A clause number as the ingested documents label it: direction marks and spaces
    dropped, no trailing full stop, "Art. 35" / "Article 35" → "Article 35"."""
    clause = " ".join(_MARKS.sub("", clause).split()).rstrip(".")
    article = _ARTICLE.match(clause)
    if article:
        return f"Article {article[1]}{article[2].replace(' ', '')}"
    return clause.replace(" ", "")


def rule_matches(clause: str | None, rule: str) -> bool:
    """Whether a citation's ``clause`` is ``rule`` or an item of it, not its guidance."""
    if not clause:
        return False
    clause, rule = normalise(clause), normalise(rule)
    if clause == rule:
        return True
    if not clause.startswith(rule) or clause[len(rule)] not in ".(":
        return False
    return ".Guidance" not in clause[len(rule):]
