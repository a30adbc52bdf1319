"""The Graph Ingress Guard: composable checks run before every graph write.

The graph is shared public knowledge, so a write is refused when it carries anything a tenant
owns: personal data (the input guardrail's own PII detector), identifiers shaped like tenant,
user or conversation ids, or chat text. Whitelists keep labels, relationship types and
property names to the public schema; size limits keep one write from smuggling a document.
A refusal is logged with the aspect and reason, never with the refused value (it may be the
very personal data we keep out)."""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from regintel.domain.concepts import DOMAIN_LABELS, RULE, SECTION
from regintel.errors import InvalidRequest
from regintel.ports.graph import GraphValue

log = logging.getLogger(__name__)

CONCEPT_LABELS = frozenset({"Concept", *DOMAIN_LABELS.values()})
NODE_LABELS = CONCEPT_LABELS | {SECTION, RULE}
REL_TYPES = frozenset({"BROADER", "NARROWER", "RELATED", "DEFINED_IN", "MENTIONED_IN"})
CONCEPT_PROPS = frozenset({"domain", "kind", "jurisdiction", "prefLabel", "altLabels",
                           "labelsNorm", "definition", "sourceUrls", "source"})
SECTION_PROPS = frozenset({"document", "clause", "title", "url", "jurisdiction", "source"})
EDGE_PROPS = frozenset({"source", "clause"})
LONG_TEXT_PROPS = frozenset({"definition"})
URL_PROPS = frozenset({"url", "sourceUrls"})
# Regulations name institutions and places ("the Union", "the European Data Protection
# Board"); those NER types are personal only in labels, never in definitions or titles.
PROSE_IGNORED_PII = frozenset({"ORGANIZATION", "GPE", "DATE_TIME", "URL"})
LABEL_IGNORED_PII = frozenset({"DATE_TIME", "URL"})

_UUID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}", re.I)
_ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
_HEX_ID = re.compile(r"\b[0-9a-f]{20,}\b", re.I)
_PREFIXED_ID = re.compile(
    r"\b(?:tenant|user|usr|conv|conversation|thread|session|sess|msg|message|acct|account|"
    r"customer|cust|client)[_:#-]?(?:id)?[_:#=-]\s*[\w-]*\d[\w-]*", re.I)
_TOKEN_LIKE = re.compile(r"\b(?=[A-Za-z0-9_-]{24,}\b)(?=[^\s]*\d)(?=[^\s]*[A-Za-z])[A-Za-z0-9_-]+")
_KEY_SHAPE = re.compile(r"^(concept|section|rule):[A-Za-z0-9_:.()\-]{1,190}$")
# A question mark, an interrogative first word, or an auxiliary verb followed by a pronoun or
# article ("Can I…", "Is it…", "Do we…"): "Do Not Call Register" and "Help to Buy" stay labels.
_QUESTION = re.compile(
    r"\?|^\s*(what|how|why|when|where|who|whom|which)\b|"
    r"^\s*(can|could|should|would|do|does|did|is|are|am|may|might|must|shall|will)\s+"
    r"(i|we|you|they|he|she|it|this|that|there|my|our|your|the|a|an)\b|"
    r"^\s*(please|tell me|explain|help me)\b", re.I)
# "I" only as a capital word that is not a numeral: "(i)", "Annex I", "Chapter I".
_FIRST_PERSON = re.compile(
    r"(?<!\()(?<!Annex )(?<!Title )(?<!Chapter )(?<!Section )(?<!Part )(?<!Book )"
    r"(?<!Schedule )\bI(?:'m|'ve|'d)?\b(?![)\-])|\b(?i:me|my|mine|myself)\b")


@dataclass(frozen=True)
class Limits:
    max_key_chars: int = 200
    max_label_chars: int = 200
    max_text_chars: int = 300
    max_definition_chars: int = 2000
    max_list_items: int = 50
    max_properties: int = 20
    max_label_words: int = 12


@dataclass(frozen=True)
class WriteRequest:
    """One graph write as the guard sees it. ``labels`` are the node's labels, or an edge's
    ``(src_label, dst_label)``; ``key`` is the node key or the edge's end keys."""

    op: Literal["node", "edge", "append", "delete"]
    labels: tuple[str, ...]
    keys: tuple[str, ...]
    properties: Mapping[str, GraphValue] = field(default_factory=dict)
    rel: str | None = None


class GraphWriteRefused(InvalidRequest):
    """The ingress guard refused a write: it would have put non-public data into the graph."""

    code = "graph_write_refused"

    def __init__(self, aspect: str, reason: str) -> None:
        super().__init__(f"graph write refused by {aspect}: {reason}")
        self.aspect = aspect
        self.reason = reason


class PiiScanner(Protocol):
    """``regintel.guardrails.input.InputGuardrail`` satisfies it (the chat's own detector)."""

    def find_pii(self, text: str) -> list[tuple[str, int, int]]: ...


Aspect = Callable[[WriteRequest], None]


def _strings(value: GraphValue) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [v for v in value if isinstance(v, str)]
    return []


def whitelist_aspect(req: WriteRequest) -> None:
    bad = [x for x in req.labels if x not in NODE_LABELS]
    if bad:
        raise GraphWriteRefused("whitelist", f"label {bad[0]!r} is not public schema")
    if req.op == "edge" and req.rel not in REL_TYPES:
        raise GraphWriteRefused("whitelist", f"relationship {req.rel!r} is not public schema")
    allowed = EDGE_PROPS if req.op == "edge" else (
        CONCEPT_PROPS if CONCEPT_LABELS & set(req.labels) else SECTION_PROPS)
    extra = sorted(set(req.properties) - allowed)
    if extra:
        raise GraphWriteRefused("whitelist", f"property {extra[0]!r} is not allowed here")
    if req.op != "edge":
        for key in req.keys:
            if not _KEY_SHAPE.match(key):
                raise GraphWriteRefused("whitelist", "node key is not a canonical key")


def identifier_aspect(req: WriteRequest) -> None:
    """Tenant, user and conversation ids are UUIDs here; ULIDs, long hex and API-token-like
    strings, and ``user_id=…`` style references are refused with them."""
    for name, prop in [("key", k) for k in req.keys] + [
            (n, s) for n, v in req.properties.items() for s in _strings(v) if n not in URL_PROPS]:
        for pattern, what in ((_UUID, "a UUID"), (_ULID, "a ULID"), (_HEX_ID, "a hex id"),
                              (_PREFIXED_ID, "an account/conversation id"),
                              (_TOKEN_LIKE, "a token-like id")):
            if pattern.search(prop):
                raise GraphWriteRefused("identifiers", f"{name} contains {what}")
    for url in [s for n in URL_PROPS for s in _strings(req.properties.get(n))]:
        if _UUID.search(url) or _PREFIXED_ID.search(url):
            raise GraphWriteRefused("identifiers", "a URL carries an id")


def chat_text_aspect(req: WriteRequest, limits: Limits = Limits()) -> None:
    """Labels and titles are short noun phrases; chat text is long, question-shaped or
    speaks in the first person. Definitions may be long prose, but never a
    question or someone talking about themselves."""
    for name, value in req.properties.items():
        if name in URL_PROPS:
            continue
        for text in _strings(value):
            if name in LONG_TEXT_PROPS:
                if "?" in text or _FIRST_PERSON.search(text):
                    raise GraphWriteRefused("chat_text", f"{name} reads like chat, not law")
                continue
            if name in {"prefLabel", "altLabels", "labelsNorm"}:
                if len(text.split()) > limits.max_label_words:
                    raise GraphWriteRefused("chat_text", f"{name} is free text, not a label")
                # Second person is allowed: "Know Your Customer" is a term of art.
                if _QUESTION.search(text) or _FIRST_PERSON.search(text):
                    raise GraphWriteRefused("chat_text", f"{name} is question-shaped")
            elif "?" in text or _FIRST_PERSON.search(text):
                raise GraphWriteRefused("chat_text", f"{name} reads like chat")


def size_aspect(req: WriteRequest, limits: Limits = Limits()) -> None:
    if any(len(k) > limits.max_key_chars for k in req.keys):
        raise GraphWriteRefused("size", "key too long")
    if len(req.properties) > limits.max_properties:
        raise GraphWriteRefused("size", "too many properties")
    for name, value in req.properties.items():
        if isinstance(value, list | tuple) and len(value) > limits.max_list_items:
            raise GraphWriteRefused("size", f"{name} has too many items")
        cap = (limits.max_definition_chars if name in LONG_TEXT_PROPS else
               limits.max_label_chars if name in {"prefLabel", "altLabels", "labelsNorm"}
               else 1000 if name in URL_PROPS else limits.max_text_chars)
        if any(len(s) > cap for s in _strings(value)):
            raise GraphWriteRefused("size", f"{name} is longer than {cap} characters")


# Two gaps of the pattern-only detector (no NER model installed) that matter for labels: a
# name behind an honorific, and an IBAN written in groups of four. Names without one are
# found only when the spaCy NER model is installed (the detector then uses it).
_HONORIFIC_NAME = re.compile(
    r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame|Lady|Lord)\.?\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?")
_SPACED_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?\b")


def _iban_ok(text: str) -> bool:
    """ISO 13616 mod-97 (as ``guardrails.pii_recognizers.iban_ok``, without its imports)."""
    compact = re.sub(r"\s", "", text).upper()
    if not 15 <= len(compact) <= 34:
        return False
    return int("".join(str(int(c, 36)) for c in compact[4:] + compact[:4])) % 97 == 1


def _extra_pii(text: str) -> set[str]:
    found = set()
    if _HONORIFIC_NAME.search(text):
        found.add("PERSON")
    if any(_iban_ok(m.group(0)) for m in _SPACED_IBAN.finditer(text)):
        found.add("IBAN_CODE")
    return found


def pii_aspect(scanner: PiiScanner) -> Aspect:
    def check(req: WriteRequest) -> None:
        for name, value in req.properties.items():
            if name in URL_PROPS or name == "labelsNorm":  # labelsNorm repeats the labels
                continue
            ignored = PROSE_IGNORED_PII if name in LONG_TEXT_PROPS | {"title", "document"} \
                else LABEL_IGNORED_PII
            for text in _strings(value):
                kinds = ({kind for kind, _s, _e in scanner.find_pii(text)}
                         | _extra_pii(text)) - ignored
                if kinds:
                    raise GraphWriteRefused("pii", f"{name} contains {', '.join(sorted(kinds))}")
        for url in [s for n in URL_PROPS for s in _strings(req.properties.get(n))]:
            kinds = {k for k, _s, _e in scanner.find_pii(url)} & {"EMAIL_ADDRESS", "PHONE_NUMBER"}
            if kinds:
                raise GraphWriteRefused("pii", "a URL carries personal data")
    return check


class IngressGuard:
    """Runs its aspects in order; the first refusal wins, is counted and logged."""

    def __init__(self, aspects: Sequence[Aspect]) -> None:
        self.aspects = list(aspects)
        self.refusals: Counter[str] = Counter()

    def check(self, req: WriteRequest) -> None:
        for aspect in self.aspects:
            try:
                aspect(req)
            except GraphWriteRefused as refused:
                self.refusals[refused.aspect] += 1
                log.warning("graph ingress refused %s %s (%s): %s", req.op,
                            ":".join(req.labels), refused.aspect, refused.reason)
                raise

    def allowed_items(self, label: str, key: str, prop: str,
                      values: Iterable[str]) -> list[str]:
        """The list items that pass on their own (a bad alias is dropped, not the write)."""
        kept = []
        for value in values:
            try:
                self.check(WriteRequest("append", (label,), (key,), {prop: [value]}))
            except GraphWriteRefused:
                continue
            kept.append(value)
        return kept


def build_ingress_guard(pii: PiiScanner | None, limits: Limits = Limits()) -> IngressGuard:
    """The standard order: cheap structural checks first, the PII model last. ``pii`` None
    is for tools that only re-import already-public data; the product always passes one."""
    aspects: list[Aspect] = [
        whitelist_aspect,
        lambda r: size_aspect(r, limits),
        identifier_aspect,
        lambda r: chat_text_aspect(r, limits),
    ]
    if pii is not None:
        aspects.append(pii_aspect(pii))
    return IngressGuard(aspects)
