"""The concept graph's vocabulary: SKOS concepts, the public sections that define or use them,
the ``capture_concepts`` payload, graph patches, and a conversation's context.

Node ids are the graph keys (``concept:DATA_PROTECTION:PERSONAL_DATA:EU``,
``section:gdpr:art-4``): stable, human-readable, and never derived from a tenant, user or
conversation."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

# The specific label of a concept, by its domain; anything else is a plain ``:Concept``.
DOMAIN_LABELS: dict[str, str] = {
    "TAX": "TaxConcept",
    "AML": "AmlConcept",
    "DATA_PROTECTION": "DataProtectionConcept",
    "AI": "AiConcept",
    "PRUDENTIAL": "PrudentialConcept",
    "CONDUCT": "ConductConcept",
    "MARKETS": "MarketsConcept",
    "GOVERNANCE": "GovernanceConcept",
}
# What an LLM (or a team's taxonomy) may call those domains.
DOMAIN_ALIASES: dict[str, str] = {
    "AML_CFT": "AML", "ANTI_MONEY_LAUNDERING": "AML", "FINANCIAL_CRIME": "AML",
    "SANCTIONS": "AML", "GDPR": "DATA_PROTECTION", "PRIVACY": "DATA_PROTECTION",
    "DATA_PRIVACY": "DATA_PROTECTION", "ARTIFICIAL_INTELLIGENCE": "AI", "AI_ACT": "AI",
    "TAXATION": "TAX", "VAT": "TAX", "CAPITAL": "PRUDENTIAL", "CONDUCT_OF_BUSINESS": "CONDUCT",
}
CONCEPT = "Concept"
SECTION = "Section"
RULE = "Rule"

_SPACE = re.compile(r"\s+")
_NON_WORD = re.compile(r"[^A-Z0-9]+")
_QUOTES = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "‐": "-", "‑": "-",
                         "–": "-", "—": "-", "`": "'"})


def clean_text(value: str) -> str:
    """One line, single spaces, straight quotes: how every label is stored."""
    value = unicodedata.normalize("NFKC", value).translate(_QUOTES)
    return _SPACE.sub(" ", value).strip().strip("'\"").strip()


def norm_label(value: str) -> str:
    """The comparison form of a label: cleaned, lower-case, hyphens as spaces, and a plural
    -s dropped from the last word (``AI systems`` matches ``AI system``)."""
    text = clean_text(value).lower().replace("-", " ")
    text = _SPACE.sub(" ", re.sub(r"[^\w\s]", " ", text)).strip()
    if len(text) > 4 and text.endswith("s") and not text.endswith(("ss", "us", "is")):
        text = text[:-1]
    return text


def code(value: str) -> str:
    """``Customer due-diligence`` → ``CUSTOMER_DUE_DILIGENCE`` (domain, kind, jurisdiction)."""
    return _NON_WORD.sub("_", clean_text(value).upper()).strip("_")


def canonical_domain(value: str) -> str:
    c = code(value)
    return DOMAIN_ALIASES.get(c, c)


def concept_label(domain: str) -> str:
    return DOMAIN_LABELS.get(canonical_domain(domain), CONCEPT)


def concept_key(domain: str, kind: str, jurisdiction: str) -> str:
    return f"concept:{canonical_domain(domain)}:{code(kind)}:{code(jurisdiction)}"


class CapturedConcept(BaseModel):
    """One item of the ``capture_concepts`` payload (CanonicalConceptInput in the spec)."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    domain: str = Field(min_length=1, max_length=64)
    kind: str = Field(min_length=1, max_length=120)
    jurisdiction: str = Field(min_length=1, max_length=32)
    prefLabel: str = Field(min_length=1, max_length=200)  # the spec's SKOS field names
    altLabels: list[str] = Field(default_factory=list, max_length=50)
    definition: str | None = Field(None, max_length=4000)
    sourceUrls: list[str] = Field(default_factory=list, max_length=20)

    def normalised(self) -> CapturedConcept:
        """§5.2 step 2: whitespace and quotes cleaned, codes upper-snake, aliases deduplicated
        (case-insensitively) without repeating the preferred label."""
        pref = clean_text(self.prefLabel)
        seen = {norm_label(pref)}
        alts: list[str] = []
        for alt in self.altLabels:
            alt = clean_text(alt)
            if alt and norm_label(alt) not in seen:
                seen.add(norm_label(alt))
                alts.append(alt)
        definition = clean_text(self.definition) if self.definition else None
        urls = list(dict.fromkeys(u.strip() for u in self.sourceUrls if u.strip()))
        return CapturedConcept(domain=canonical_domain(self.domain), kind=code(self.kind),
                               jurisdiction=code(self.jurisdiction), prefLabel=pref,
                               altLabels=alts, definition=definition or None, sourceUrls=urls)

    @property
    def key(self) -> str:
        return concept_key(self.domain, self.kind, self.jurisdiction)


class CapturePayload(BaseModel):
    """The ``capture_concepts`` tool arguments."""

    model_config = ConfigDict(extra="ignore")

    concepts: list[CapturedConcept] = Field(max_length=50)


class ConceptRef(BaseModel):
    """CanonicalConceptResult: the node id and its labels."""

    id: str
    labels: list[str]
    created: bool = False


class ConceptSummary(BaseModel):
    """A node as the conversation-context paragraph shows it."""

    id: str
    prefLabel: str
    jurisdiction: str = ""
    shortDescription: str = ""


class GraphPatch(BaseModel):
    """One change the graph UI applies: a node or edge added, updated or removed."""

    op: Literal["add", "update", "remove"]
    kind: Literal["node", "edge"]
    id: str
    at: int = Field(description="Epoch milliseconds of the change.")
    labels: list[str] = Field(default_factory=list)
    properties: dict[str, object] = Field(default_factory=dict)
    source: str | None = None
    target: str | None = None
    rel: str | None = None


class ConversationIdentity(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenant_id: UUID
    conversation_id: UUID
    user_id: UUID | None = None


class ConversationContext(BaseModel):
    """The engine's memory of which graph nodes are in play, oldest first."""

    activeNodeIds: list[str] = Field(default_factory=list)


EMPTY_CONTEXT = ConversationContext()


def edge_id(src: str, rel: str, dst: str) -> str:
    return f"{src}-[{rel}]->{dst}"
