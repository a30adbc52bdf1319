"""The chat contract: what a turn is asked, and the typed response every engine returns
(`regintel ask --json`, the API's `meta` event). Field names follow the issue's contract."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from regintel.domain.documents import SECTION_SEPARATOR

MAX_MESSAGE_CHARS = 8000
MAX_QUOTE_CHARS = 300

_ENDS = re.compile(r"[.;:!?)\]\"”’…]\s*$")


def quoted(quote: str) -> str:
    """A quote for display, in quotation marks, with "…" where it stops mid-sentence (it is
    cut to MAX_QUOTE_CHARS); the quote itself stays verbatim for verification."""
    return f"\"{quote}\"" if _ENDS.search(quote) else f"\"{quote}…\""


class Action(StrEnum):
    SUMMARIZE = "summarize"
    INQUIRE = "inquire"
    COMPARE = "compare"
    AUDIT = "audit"


class EngineChoice(StrEnum):
    """The engine a conversation asks for: the offline engine, the embedded local model, or
    the configured model endpoint (``llm.base_url``/``providers``). Which of these a
    deployment offers depends on its settings; a conversation without one uses the
    deployment's default."""

    OFFLINE = "offline"
    LOCAL = "local"
    CLOUD = "cloud"


class OfferedEngine(BaseModel):
    """An engine a deployment offers its conversations, as a selector shows it."""

    id: EngineChoice
    label: str = Field(description="Engine and model, e.g. 'Cloud model · gpt-4o-mini'.")
    model: str | None = Field(None, description="The model of its answers (None: offline).")
    default: bool = Field(False, description="What a conversation without a choice uses.")


class Engine(StrEnum):
    """The engine that answered a turn (the badge): with a model, ``llm+fallback`` when a step
    fell back to the offline engine."""

    OFFLINE = "offline"
    LLM = "llm"
    LLM_FALLBACK = "llm+fallback"


Severity = Literal["Critical", "High", "Medium", "Low"]
SEVERITY_ORDER: tuple[Severity, ...] = ("Critical", "High", "Medium", "Low")
# Never "Compliant": an audit proves what it found, not that nothing else is wrong.
# "Review needed": nothing proven, but obligations the officer has yet to review (issue 47) -
# "No issues found" would claim what the engine did not check.
OverallStatus = Literal["No issues found", "Minor Issues", "Major Violations", "Review needed"]
NeedsInputKind = Literal["confirm_docs", "choose_docs", "missing_docs", "low_confidence",
                         "choose_action"]


class ChatRequest(BaseModel):
    """One user turn. ``answer`` resumes a pending question (an interrupt) on the thread."""

    model_config = ConfigDict(frozen=True)

    message: str = ""
    thread_id: UUID | None = None
    tagged_doc_ids: tuple[UUID, ...] = ()
    tagged_set_ids: tuple[UUID, ...] = ()
    action: Action | None = None
    enable_web_search: bool = False
    use_memory: bool = True
    project_id: UUID | None = None
    answer: str | None = None
    source_text: str | None = Field(
        None, description="Pasted text to audit (text mode), instead of a source document.")


class LineRange(BaseModel):
    """1-based, inclusive lines of a document's text."""

    start: int = Field(ge=1)
    end: int = Field(ge=1)


class Citation(BaseModel):
    n: int
    source_type: Literal["document", "web"] = "document"
    document_id: UUID | None = None
    chunk_id: UUID | None = None
    title: str
    version: str = ""
    page: int | None = Field(
        None, description="The page, in documents with real pages (PDF); None in text, "
        "Markdown, HTML and DOCX, which are cited by section and lines.")
    clause: str | None = None
    section: str | None = Field(
        None, description="The headings above the quote, outermost first, joined by \" › \" "
        "(\"PART 3 › Chapter 14 › 14.2 Internal reporting\").")
    lines: LineRange | None = Field(
        None, description="The lines of the document's text holding the quote (documents "
        "without pages).")
    quote: str = Field(max_length=MAX_QUOTE_CHARS)
    url: str | None = None

    @property
    def location(self) -> str:
        """Where the quote is, for a reader: "page 12 · clause 8.1.1" in a PDF, "§ 14.2.1 ·
        14.2 Internal reporting · lines 812–815" in a document without pages (the web UI's
        ``citationMeta`` says the same)."""
        if self.page is not None:
            return " · ".join(x for x in (f"page {self.page}",
                                          f"clause {self.clause}" if self.clause else "") if x)
        heading = self.section.rsplit(SECTION_SEPARATOR, 1)[-1] if self.section else None
        # The heading alone when it is the clause's own ("14.2 Internal reporting").
        named = [heading] if heading and self.clause and _names_clause(heading, self.clause) \
            else [x for x in (self.clause, heading) if x]
        parts = [f"§ {' · '.join(named)}"] if named else []
        if self.lines is not None:
            a, b = self.lines.start, self.lines.end
            parts.append(f"line {a}" if a == b else f"lines {a}–{b}")
        return " · ".join(parts)


def _names_clause(heading: str, clause: str) -> bool:
    """Whether a heading is the clause's own ("14.2 Internal reporting" for clause "14.2")."""
    return heading == clause or heading.startswith((f"{clause} ", f"{clause}.", f"{clause}\t"))


class ConfidenceOut(BaseModel):
    tier: Literal["high", "medium", "low"]
    score: float


class ResolvedDocument(BaseModel):
    id: UUID
    title: str
    how: Literal["explicit", "inferred", "search"]


class Inference(BaseModel):
    confidence: Literal["high", "medium", "low", "none"] = "none"
    reasoning: str = ""


class InputOption(BaseModel):
    id: str
    label: str


class NeedsInput(BaseModel):
    kind: NeedsInputKind
    message: str
    options: list[InputOption] = Field(default_factory=list)


class Statement(BaseModel):
    """One claim of a typed result, with the citation numbers that support it."""

    text: str
    citations: list[int] = Field(default_factory=list)


class SummaryPart(BaseModel):
    """One part of a document as its summary walks it: its heading and its central
    statement."""

    heading: str
    statement: Statement


class SummarySection(BaseModel):
    document_id: UUID
    title: str
    overview: str
    key_obligations: list[Statement] = Field(default_factory=list)
    # A whole-document summary walks the document's own parts in order; ``coverage`` says how
    # many of them it summarised ("14 of 16 chapters").
    parts: list[SummaryPart] = Field(default_factory=list)
    coverage: str | None = None


class SummaryResult(BaseModel):
    sections: list[SummarySection] = Field(default_factory=list)


class ComparisonCell(BaseModel):
    document_id: UUID
    text: str
    citation: int | None = None


class ComparisonRow(BaseModel):
    aspect: str
    cells: list[ComparisonCell]
    differs: bool


class ComparisonResult(BaseModel):
    mode: Literal["holistic", "focused"]
    topic: str | None = None
    overview: str = ""
    differences: list[Statement] = Field(default_factory=list)
    similarities: list[Statement] = Field(default_factory=list)
    unique: dict[str, list[Statement]] = Field(
        default_factory=dict, description="Document id → what only that document covers.")
    implications: list[Statement] = Field(default_factory=list)
    table: list[ComparisonRow] = Field(default_factory=list)


class AuditFinding(BaseModel):
    target_doc_id: UUID
    target_doc_title: str
    theme: str | None = None
    kind: Literal["gap", "conflict"]
    severity: Severity
    consequence: str
    source_quote: str | None = Field(None, max_length=MAX_QUOTE_CHARS)
    target_quote: str = Field(max_length=MAX_QUOTE_CHARS)
    target_clause: str | None = None
    target_page: int | None = None
    suggestion: str
    confidence_score: float = Field(ge=0, le=1)
    citations: list[int] = Field(default_factory=list)


class FlaggedRule(BaseModel):
    """A rule a flagged sentence may break: the rule's sentence verbatim, and how close."""

    target_doc_id: UUID
    target_doc_title: str = ""
    rule: str | None = None
    quote: str = Field(max_length=MAX_QUOTE_CHARS, description="The rule's required act, "
                       "verbatim.")
    score: float = Field(0.0, ge=0, le=1)


class FlaggedSentence(BaseModel):
    """A sentence of a checked text that proposes not doing, delaying, hiding, deleting or
    altering something, with the rules it may break (the three closest): a flag for the
    reader to weigh, not a finding."""

    sentence: str = Field(description="The text's sentence, verbatim.")
    cue: str = Field(description="The words that make the proposal, verbatim.")
    rules: list[FlaggedRule] = Field(default_factory=list)


class ReviewCounts(BaseModel):
    """What the engine proved and what it left to the officer."""

    findings: int = Field(0, ge=0, description="Rows proven (each a finding).")
    to_review: int = Field(0, ge=0)
    likely_met: int = Field(0, ge=0, description="Proposed as met, not proven.")
    not_applicable: int = Field(0, ge=0)

    @property
    def verdict(self) -> str:
        said = [f"{self.findings} proven finding{'s' if self.findings != 1 else ''}",
                f"{self.to_review} obligation{'s' if self.to_review != 1 else ''} to review"]
        if self.likely_met:
            said.append(f"{self.likely_met} likely met (proposed, not proven)")
        if self.not_applicable:
            said.append(f"{self.not_applicable} not applicable")
        return ", ".join(said)


class AuditResult(BaseModel):
    mode: Literal["text", "policy"]
    overall_status: OverallStatus
    findings: list[AuditFinding] = Field(default_factory=list)
    summary: str = ""
    targets_checked: int
    themes_analyzed: int | None = None
    rules_checked: list[str] = Field(
        default_factory=list, description="The rules the audited text was checked against "
        "(document title and clause), so a verdict without findings says what it covers.")
    review: ReviewCounts | None = Field(None, description="The review queue's counts, when "
                                        "the audit made one (the matrix engine's).")
    flagged: list[FlaggedSentence] = Field(default_factory=list, description="A checked "
                                           "text's sentences that propose not doing, "
                                           "delaying, hiding, deleting or altering something.")


class SourceValidation(BaseModel):
    grounded: bool = True
    issues: list[str] = Field(default_factory=list)
    confidence: float = 1.0
    verified: int = 0
    dropped: int = Field(0, description="Quotes that did not verify against their chunk.")


class ToneValidation(BaseModel):
    appropriate: bool = True
    original_text: str | None = None
    adjustments: list[str] = Field(default_factory=list)


class OutputGuardrail(BaseModel):
    safe: bool = True
    issues: list[str] = Field(default_factory=list)
    original_text: str | None = None


class Validation(BaseModel):
    sources: SourceValidation = Field(default_factory=SourceValidation)
    tone: ToneValidation = Field(default_factory=ToneValidation)
    output_guardrail: OutputGuardrail = Field(default_factory=OutputGuardrail)


class Triage(BaseModel):
    route: str = "pipeline"
    skip_llm: bool = False
    early_response: str | None = None
    triage_log: list[str] = Field(default_factory=list)


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


class ChatResponse(BaseModel):
    thread_id: UUID
    action: Action | None = None
    answer: str
    citations: list[Citation] = Field(default_factory=list)
    confidence: ConfidenceOut | None = None
    resolved_documents: list[ResolvedDocument] = Field(default_factory=list)
    inference: Inference = Field(default_factory=Inference)
    needs_input: NeedsInput | None = None
    summary: SummaryResult | None = None
    comparison: ComparisonResult | None = None
    audit: AuditResult | None = None
    referenced_nodes: list[str] = Field(default_factory=list)
    context: dict[str, object] = Field(
        default_factory=dict, description="Notices and degradations of this turn.")
    validation: Validation = Field(default_factory=Validation)
    triage: Triage = Field(default_factory=Triage)
    usage: Usage = Field(default_factory=Usage)
    engine: Engine = Engine.OFFLINE
