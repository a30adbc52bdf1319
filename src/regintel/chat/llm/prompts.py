"""The LLM engine's prompts, versioned, with the structured outputs they ask for beside them.

Every request is ``[system, user]``: the system message is the shared ``SYSTEM_PROMPT`` followed
by the step's own static instructions (identical on every call, so providers can cache the
prefix); everything that changes per call (the message, the registry, the evidence) is in the
user message, filled from the ``*_INPUT`` templates' named placeholders."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from regintel.chat.prompts import PROMPT_VERSION as SYSTEM_PROMPT_VERSION
from regintel.concepts.capture import CAPTURE_CONCEPTS_INSTRUCTIONS, CAPTURE_CONCEPTS_SCHEMA
from regintel.ports.llm import ToolSpec

LLM_PROMPT_VERSION = f"{SYSTEM_PROMPT_VERSION}+llm.4"

# Sentinel the inquiry prompt asks for when the evidence does not answer; tests assert on it.
NO_ANSWER = "The retrieved provisions do not address this question."


class _Output(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- classify_intent --------------------------------------------------------------------------
class IntentOutput(_Output):
    action: Literal["summarize", "inquire", "compare", "audit"]
    confidence: float = Field(ge=0.0, le=1.0)
    reason: str


INTENT_TASK = """## Task: classify the request
Decide which single action the user's message asks for:
- summarize: an overview of one or more documents;
- inquire: a question answered from the documents;
- compare: the differences or similarities between two or more documents;
- audit: whether a policy or text complies with a regulation.
Answer with one JSON object only: {"action": "...", "confidence": 0.0-1.0, "reason": "..."}.
"""
INTENT_INPUT = "Message: {message}"


# -- resolve_references -----------------------------------------------------------------------
class ReferencesOutput(_Output):
    has_implicit_refs: bool
    inferred_doc_ids: list[str]
    inference_confidence: Literal["high", "medium", "low"]
    reasoning: str
    unmatched_name: str | None = Field(
        None, description="Low confidence only: a document the message names that is not in "
        "the conversation (e.g. 'FSA').")
    unmatched_kind: Literal["regulation", "policy"] | None = None


REFERENCES_TASK = """## Task: resolve implicit document references
Analyse whether the message refers to documents without tagging them ("that regulation",
"the policy above", "those two documents", "it"). Tagged documents are already resolved.
Return one JSON object only:
- has_implicit_refs: boolean;
- inferred_doc_ids: ids taken only from "Documents in this conversation", never invented;
- inference_confidence: "high" (one clear match), "medium" (several candidates: list them all
  in inferred_doc_ids so the user can confirm), "low" (nothing in the conversation matches);
- reasoning: one sentence;
- unmatched_name / unmatched_kind: for low confidence, the document the user named that is not
  in the conversation and whether it is a "regulation" or a "policy"; otherwise null.
A phrase such as "that's great" is not a document reference.
"""
REFERENCES_INPUT = """Message: {message}
Intended action: {action}
Explicit documents provided: {explicit}
Documents in this conversation (id | title | type | turn):
{registry}"""


# -- compose_inquiry (the main call: streamed prose, concept capture on the side) ------------
INQUIRY_TASK = f"""## Task: answer from the numbered evidence
Answer the question using only the numbered evidence, in plain prose or short bullets. End
each statement with the number of the evidence it comes from in square brackets, e.g. [2] or
[1][3]; never cite a number that is not in the evidence. Do not copy long passages: the
citation shows the exact wording. If the evidence does not answer the question, answer exactly
"{NO_ANSWER}"
"""
CAPTURE_INSTRUCTION = f"## Concepts\n{CAPTURE_CONCEPTS_INSTRUCTIONS}\n"
# The concept-capture spec's tool (§4.2), offered on the main call of every turn.
CAPTURE_CONCEPTS_TOOL = ToolSpec.model_validate(CAPTURE_CONCEPTS_SCHEMA)
INQUIRY_INPUT = """Question: {question}

Evidence:
{evidence}"""
# The question again after the evidence, for a small model: reading a long evidence block it
# otherwise loses it (the 0.5B model answered a lone "[1]").
QUESTION_AGAIN = """

Answer the question "{question}" in a few sentences, each ending with its evidence number."""
# The worked example a small model is shown as an earlier exchange (an invented rulebook: the
# model copies an example's words, which then cite nothing and are dropped).
EXAMPLE_NOTE = ("(A worked example from another field, a lending library: it shows the form of "
                "an answer only. None of its words belong in an answer.)\n\n")
EXAMPLE_QUESTION = "How long may a member keep a book?"
EXAMPLE_EVIDENCE = """[1] Library Rules, clause 2.1
A member may borrow up to five books at a time. Books must be returned within 21 days of the
loan.

[2] Library Rules, clause 3.4
A member who returns a book late pays a fee of one unit for each day."""
EXAMPLE_ANSWER = ("A member must return a book within 21 days of the loan [1]. A late return "
                  "costs one unit a day [2].")
EVIDENCE_ITEM = "[{n}] {title}{clause}{page}\n{before}{text}"
# What the passage needs from the text before it (retrieval.preceding); not part of the
# passage, so not to be quoted (a quote is verified against the passage alone).
EVIDENCE_BEFORE = "(Read after, from the text before it; do not quote: \"{words}\")\n"


# -- compose_summary and compose_comparison (one structured call each) ----------------------
class CitedOutput(_Output):
    """One statement of a summary or comparison and the evidence numbers it comes from."""

    text: str = Field(min_length=1, max_length=600)
    evidence: list[int] = Field(description="Numbers of the evidence items that support it.")


class SummarySectionOutput(_Output):
    document_id: str
    overview: CitedOutput
    key_obligations: list[CitedOutput] = Field(max_length=8)


class SummaryOutput(_Output):
    documents: list[SummarySectionOutput]


# Static rules shared by the summary and both comparisons.
_STATEMENT_RULES = """Every statement is an object {"text": "...", "evidence": [n, ...]}:
"text" is one sentence that stays close to the wording of the evidence (never a fact the
evidence does not state); "evidence" lists the numbers of the evidence items it comes from —
at least one, and only numbers shown in the evidence. Do not quote at length and do not put
[n] markers in "text": the citation shows the exact wording. Use document ids (D1, D2, …)
exactly as given in the headings."""

SUMMARY_TASK = f"""## Task: summarise the documents from the numbered evidence
The evidence is a sample spread over each document, grouped under its document's id. For
every document return one section:
- document_id: the document's id;
- overview: one statement saying what the document is and what it governs;
- key_obligations: 3 to 6 statements of the main obligations, rules or requirements it sets,
  in document order, each citing only that document's evidence.
{_STATEMENT_RULES}
Return one JSON object only: {{"documents": [{{"document_id": "...", "overview": {{...}},
"key_obligations": [{{...}}]}}]}}.
"""
SUMMARY_INPUT = """Documents to summarise: {count}

{evidence}"""
DOCUMENT_HEADING = "### Document {id}: {title}{version} ({doc_type})"


class ComparisonCellOutput(_Output):
    document_id: str
    addressed: bool = Field(description="False when the document's evidence says nothing on "
                            "this aspect; text and evidence are then ignored.")
    text: str = Field(max_length=600)
    evidence: list[int]


class ComparisonRowOutput(_Output):
    aspect: str = Field(min_length=1, max_length=120)
    cells: list[ComparisonCellOutput]
    differs: bool


class FocusedComparisonOutput(_Output):
    rows: list[ComparisonRowOutput] = Field(min_length=1, max_length=6)
    differences: list[CitedOutput] = Field(max_length=6)
    similarities: list[CitedOutput] = Field(max_length=6)


class UniqueOutput(_Output):
    document_id: str
    points: list[CitedOutput] = Field(max_length=5)


class HolisticComparisonOutput(_Output):
    overview: CitedOutput
    differences: list[CitedOutput] = Field(max_length=8)
    similarities: list[CitedOutput] = Field(max_length=8)
    unique: list[UniqueOutput]
    implications: list[CitedOutput] = Field(max_length=5)


COMPARE_FOCUSED_TASK = f"""## Task: compare the documents on one topic
Build a difference table from the numbered evidence, grouped under each document's id:
- rows: one row per aspect of the topic (the first row is the topic itself; add rows only for
  distinct sub-points such as a period, a threshold or who is responsible). Each row has one
  cell per document, in the order the documents are given: what that document requires on
  the aspect (its figures, periods and modal verbs exactly as stated), with the numbers of
  that document's evidence; a document that does not address the aspect gets
  {{"addressed": false, "text": "", "evidence": []}}. "differs" is true when the documents
  disagree or one of them is silent.
- differences and similarities: statements across the documents (at least one in all).
{_STATEMENT_RULES}
Return one JSON object only: {{"rows": [{{"aspect": "...", "cells": [{{"document_id": "...",
"addressed": true, "text": "...", "evidence": [1]}}], "differs": true}}], "differences":
[...], "similarities": [...]}}.
"""
COMPARE_FOCUSED_INPUT = """Question: {question}
Topic: {topic}
Documents to compare: {count}

{evidence}"""

COMPARE_HOLISTIC_TASK = f"""## Task: compare the documents as a whole
The evidence is a sample spread over each document, grouped under its document's id. Report:
- overview: one statement on the purpose of each document;
- differences: where the documents set different requirements (figures, scope, modal verbs);
- similarities: the requirements they share (at least one difference or similarity in all);
- unique: for each document, the provisions only it covers ({{"document_id": "...",
  "points": [...]}}, each point citing only that document's evidence);
- implications: what the differences and gaps mean for a firm subject to these documents.
{_STATEMENT_RULES}
Return one JSON object only: {{"overview": {{...}}, "differences": [...], "similarities":
[...], "unique": [...], "implications": [...]}}.
"""
COMPARE_HOLISTIC_INPUT = """Question: {question}
Documents to compare: {count}

{evidence}"""


# -- summarize_thread -------------------------------------------------------------------------
class ThreadSummaryOutput(_Output):
    summary: str = Field(max_length=2000)


THREAD_TASK = """## Task: keep the conversation summary
Update the running summary of the conversation with the new messages: one line per exchange
("- Asked: <question> → <gist of the answer>"), at most 200 words in all, dropping the oldest
lines first. Keep document titles and clause numbers exactly as written.
Return one JSON object only: {"summary": "..."}.
"""
THREAD_INPUT = """Summary so far:
{previous}

New messages:
{messages}"""


# -- rewrite_tone -----------------------------------------------------------------------------
class ToneOutput(_Output):
    appropriate: bool
    rewritten: str | None = None
    adjustments: list[str] = Field(default_factory=list)


TONE_TASK = """## Task: check the tone
Check the answer below against the communication style. If it is appropriate, return
{"appropriate": true, "rewritten": null, "adjustments": []}. Otherwise rewrite it in the
corporate register, changing wording only: keep every fact, number, quote and citation marker
such as [1] exactly, and list each change briefly in "adjustments".
Return one JSON object only: {"appropriate": false, "rewritten": "...", "adjustments": ["..."]}.
"""
TONE_INPUT = "Answer:\n{text}"
