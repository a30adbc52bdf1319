"""Text pasted into the message to be audited. A compliance officer types "Check this email
against the market rules: Hi team, to speed up onboarding …" in the chat box; the email is the
audit's source (text mode), not part of the question: its words must not be read as
references to documents ("his ID documents") or as the question retrieval answers.

The message is split when its opening asks for a check of something pointed at ("this
email", "the following", "below") and what follows - after the first colon or blank line,
or between quotes - is at least MIN_PASTED_WORDS long; or when its last sentence asks so of
the text before it ("… we can sort it out later. Check this email against the rules.")."""

from __future__ import annotations

import re

from regintel.domain.chat import ChatRequest
from regintel.retrieval.evidence import sentences

MIN_PASTED_WORDS = 8  # a one-line email ("skip the checks this once, tell no one") counts
MAX_INSTRUCTION_CHARS = 300  # the instruction is a line or two, not a paragraph
_CHECK = re.compile(
    r"\b(?:audit|check|review|assess|vet|screen|verify|(?:is|are) (?:it|this|these|the "
    r"following)(?: [\w-]+)? (?:compliant|complying|in line)|do(?:es)? (?:it|this|these|the "
    r"following)(?: [\w-]+)? (?:comply|meet|breach|violate))", re.I)
_POINTER = re.compile(
    r"\b(?:this|these|the following|below|attached|pasted|my|our)\b[^:\n]{0,40}?\b(?:email|"
    r"e-mail|message|text|letter|draft|copy|advert|advertisement|post|statement|note|"
    r"memo|script|wording|paragraph|clause)\b|\bthe following\b|\bbelow\b",
    re.I)
_QUOTED = re.compile(r"[\"“](.+)[\"”]\s*$", re.S)


def split(message: str) -> tuple[str, str] | None:
    """(instruction, pasted text) when the message asks for a check of text it carries;
    None when it does not."""
    for instruction, pasted in _cuts(message):
        instruction, pasted = instruction.strip(), pasted.strip()
        if (instruction and len(instruction) <= MAX_INSTRUCTION_CHARS
                and _CHECK.search(instruction) and _POINTER.search(instruction)
                and len(pasted.split()) >= MIN_PASTED_WORDS and not _one_question(pasted)):
            return instruction, pasted
    return None


def _one_question(text: str) -> bool:
    """"Review the following for me: what does Rule 8.1 require of trusts …?" asks; a text
    to audit says more than one question."""
    return text.endswith("?") and len(sentences(text)) == 1


def _cuts(message: str) -> list[tuple[str, str]]:
    """Where the instruction may end: the first blank line, the first colon, an opening
    quote (the quoted text running to the end)."""
    cuts: list[tuple[str, str]] = []
    blank = re.search(r"\n\s*\n", message)
    if blank:
        cuts.append((message[:blank.start()], message[blank.end():]))
    colon = message.find(":")
    if colon >= 0:
        cuts.append((message[:colon], message[colon + 1:]))
    quoted = _QUOTED.search(message)
    if quoted:
        cuts.append((message[:quoted.start()], quoted.group(1)))
    # The instruction after the text: "Hi team, … later. Check this email against the rules."
    parts = sentences(message.strip())
    if len(parts) >= 2:
        last = message.rstrip().rfind(parts[-1])
        if last > 0:
            cuts.append((parts[-1], message[:last]))
    return sorted(cuts, key=lambda cut: len(cut[0]))


def separate(request: ChatRequest) -> ChatRequest:
    """The request with pasted text moved from the message to ``source_text`` (a request
    that already carries one, or answers a pending question, is left as it is)."""
    if request.source_text or request.answer is not None:
        return request
    found = split(request.message)
    if found is None:
        return request
    instruction, pasted = found
    return request.model_copy(update={"message": instruction, "source_text": pasted})
