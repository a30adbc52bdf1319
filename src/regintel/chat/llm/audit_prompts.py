"""The LLM audit's prompts, versioned, with the structured outputs they ask for beside them
(see ``chat.llm.audit``): the themes of a policy, and the findings on one theme."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from regintel.chat.prompts import PROMPT_VERSION as SYSTEM_PROMPT_VERSION

AUDIT_PROMPT_VERSION = f"{SYSTEM_PROMPT_VERSION}+llm-audit.2"
MAX_FINDINGS_PER_CALL = 12


# -- extract_themes ---------------------------------------------------------------------------
class _Output(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ThemesOutput(_Output):
    themes: list[Annotated[str, Field(min_length=1, max_length=100)]] = Field(
        min_length=1, max_length=20,
        description="3 to 8 compliance themes, short noun phrases, most substantial first.")


THEMES_TASK = """## Task: extract the policy's compliance themes
The passages are a sample spread evenly over a company policy, numbered [S1], [S2], ... in
document order. List the 3 to 8 compliance themes the policy covers: the areas a regulator
would check it on (for example "customer due diligence", "record retention", "suspicious
activity reporting"), most substantial first. Each theme is a short noun phrase of 2 to 6
words in the policy's own terms: no duplicates, no document titles, no clause numbers.
Return one JSON object only: {"themes": ["...", "..."]}.
"""
THEMES_INPUT = """Policy: {title}
Sampled passages: {count}

{passages}"""


# -- audit_findings ---------------------------------------------------------------------------
class FindingOutput(_Output):
    kind: Literal["gap", "conflict"]
    severity: Literal["Critical", "High", "Medium", "Low"]
    target_evidence: str = Field(
        description='The id of the one TARGET passage that states the requirement, e.g. "T2".')
    source_evidence: str | None = Field(
        None, description='The SOURCE passage that says otherwise (required for a conflict), '
        'or the closest one for a gap, e.g. "S1"; null when the source is silent.')
    requirement: str = Field(min_length=1, max_length=400, description=(
        "The requirement at issue in one sentence, close to the target passage's wording."))
    consequence: str = Field(min_length=1, max_length=500)
    suggestion: str = Field(min_length=1, max_length=500)
    confidence_score: float = Field(ge=0.0, le=1.0)


class FindingsOutput(_Output):
    findings: list[FindingOutput] = Field(max_length=MAX_FINDINGS_PER_CALL)


FINDINGS_TASK = f"""## Task: audit the source against the regulations
SOURCE passages [S1], [S2], ... come from the company policy or text being audited; TARGET
passages [T1], [T2], ... come from the regulations it must comply with, grouped under each
regulation's title. Check the source against every requirement the TARGET passages set on
the theme given (the whole text when no theme is given), regulation by regulation:
- a conflict: a SOURCE passage says otherwise (a longer period, a later deadline, a higher
  threshold, "may" where the rule says "must", a promise or waiver the rule forbids); its id
  goes in source_evidence;
- a gap: the rule requires something the SOURCE passages leave out although they deal with
  its subject; source_evidence is the closest SOURCE passage, or null. Where the passages
  shown may simply not be the part of the source that deals with it, lower the confidence.
Each finding is an object:
- kind: "gap" or "conflict";
- severity: "Critical" (a prohibition breached or an offence risked), "High" (a mandatory
  obligation missed or contradicted), "Medium" (a partial or unclear treatment), "Low" (a
  procedural or documentation shortfall);
- target_evidence: the id of the one TARGET passage that states the requirement (required);
- source_evidence: a SOURCE id or null;
- requirement: the requirement in one sentence, close to the target passage's wording;
- consequence: the regulatory or business consequence, naming the regulation and clause;
- suggestion: the change to the source that would comply;
- confidence_score: 0.0 to 1.0, how sure you are the issue is real on these passages.
Use only ids shown; do not quote (the quote is cut from the passage you cite); one finding
per requirement, at most {MAX_FINDINGS_PER_CALL}. When the source complies with every
requirement shown, return {{"findings": []}}.
Return one JSON object only: {{"findings": [{{"kind": "...", "severity": "...",
"target_evidence": "T1", "source_evidence": "S1", "requirement": "...", "consequence": "...",
"suggestion": "...", "confidence_score": 0.8}}]}}.
"""
# The source first: a whole policy shown in every call of an audit is then a prefix the
# provider can cache.
FINDINGS_INPUT = """Source: {source}

SOURCE passages:

{sources}

Theme: {theme}

TARGET passages:

{targets}"""
WHOLE_TEXT = "(none: the whole text)"
PASSAGE = "[{id}] {where}\n{text}"
TARGET_HEADING = "### {title}{version}"
NO_PASSAGES = "(no passages retrieved)"
