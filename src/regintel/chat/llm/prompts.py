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

LLM_PROMPT_VERSION = f"{SYSTEM_PROMPT_VERSION}+llm.2"

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
EVIDENCE_ITEM = "[{n}] {title}{clause}{page}\n{text}"


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
