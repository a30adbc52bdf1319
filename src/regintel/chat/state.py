"""The chat graph's state. Values are plain JSON (dicts of the domain models dumped in JSON
mode) so every checkpoint is readable and survives a restart with any serializer."""

from __future__ import annotations

from typing import Any, TypedDict


class DocRef(TypedDict):
    """A document in play in the thread (the registry implicit references resolve against)."""

    id: str
    title: str
    version: str
    doc_type: str
    turn: int


class ChatState(TypedDict, total=False):
    # -- input of the turn
    request: dict[str, Any]          # ChatRequest in JSON mode
    message: str                     # the question, PII masked
    query: str                       # the question as searched: a follow-up with its thread
    screened: dict[str, Any]         # the input guardrail's verdict, taken before the run
    turn: int                        # 1-based turn number on this thread
    # -- thread (kept across turns by the checkpointer)
    registry: list[DocRef]
    memory: dict[str, Any]           # Memory in JSON mode (recent window + summary)
    # -- triage
    triage: dict[str, Any]           # Triage
    # -- resolution
    action: str | None
    resolved: list[dict[str, Any]]   # ResolvedDocument
    documents: list[dict[str, Any]]  # the resolved Documents themselves, in the same order
    source_doc: str | None           # audit: the document audited
    versions: list[str] | None       # a change question's two versions, old and new (ids)
    inference: dict[str, Any]        # Inference
    notice: str | None               # "Auditing A against B." before the answer
    unheld: list[dict[str, Any]]     # instrument_names.Name the library has no document for
    pending: dict[str, Any] | None   # NeedsInput the next interrupt will ask
    halted: bool                     # the turn ends with a question or a refusal, no action
    # -- action
    hits: list[dict[str, Any]]       # ChunkHit evidence of the turn (all tool rounds)
    confidence: dict[str, Any] | None
    proceed_low: bool                # the user chose "continue anyway" at low confidence
    web_requested: bool              # the user chose "search the web" at a prompt
    web: list[dict[str, Any]]        # WebResult of the turn's web search
    answer: str
    citations: list[dict[str, Any]]
    result: dict[str, Any]           # {"summary"|"comparison"|"audit": typed result}
    tool_log: list[str]
    dropped_quotes: int
    streamed: str                    # the answer as already sent to the client (see streaming)
    concepts: list[dict[str, Any]] | None  # capture_concepts payloads of the main call
    # -- after the action
    referenced_nodes: list[str]
    validation: dict[str, Any]
    context: dict[str, Any]          # notices and degradations of this turn
    response: dict[str, Any]         # ChatResponse in JSON mode
