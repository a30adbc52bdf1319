"""The offline ``capture_concepts``: the same payload the LLM's tool call carries, from text.

Two sources of concepts, both grounded in the turn's own text:

* **known concepts** — the graph's SKOS labels (``prefLabel`` and ``altLabels``, normalised)
  found in the question, the answer or the cited passages; the question counts most, and a
  label shared by two domains is resolved by the domains of the cited documents;
* **defined terms** — drafting patterns for definitions in the cited passages:
  ``'Customer Due Diligence' means …``, ``“personal data” means …``, ``'X' shall mean …``,
  ``For the purposes of this Regulation, 'X' means …``, and unquoted ``X shall mean …`` at
  the start of a sentence or numbered point. Domain and jurisdiction come from the cited
  document's metadata (its title, or what the caller knows).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from regintel.domain.concepts import clean_text, code, norm_label
from regintel.ports.graph import GraphNode

MAX_DEFINITION_CHARS = 600
_OPEN, _CLOSE = "'\"‘“", "'\"’”"
_QUOTED = re.compile(
    rf"[{_OPEN}](?P<term>[^{_OPEN}{_CLOSE}\n]{{2,80}}?)[{_CLOSE}]"
    r"(?P<tail>(?:\s+[\w-]+){0,5}?)\s*,?\s+(?:means|shall\s+mean|is\s+defined\s+as)\b[: \t]*"
    r"(?P<definition>[^\n]*)(?=\n?(?P<next>[^\n]*))", re.I)
_UNQUOTED_SHALL = re.compile(
    r"(?:^|[.;:]\s+|\(\w{1,4}\)\s*)(?P<term>[A-Z][\w-]*(?:\s+[\w-]+){0,5}?)\s+shall\s+mean\b"
    r"[: \t]*(?P<definition>[^\n]*)(?=\n?(?P<next>[^\n]*))", re.M)
# Glossary tables (ADGM rulebooks and regulations): the term, a tab, then "means …".
_GLOSSARY = re.compile(
    r"^(?P<term>[A-Za-z0-9][\w&'’()/,-]*(?: [\w&'’()/,-]+){0,9}?) *\t[ \t]*"
    r"(?:means|Means)\b[: \t]*(?P<definition>[^\n]*)(?=\n?(?P<next>[^\n]*))", re.M)
# What "means" is followed by when the definition is a list on the lines below.
_LIST_OPENER = re.compile(r"^\s*(?:[—–:-]|either\s*:|any of the following\s*:?)?\s*$", re.I)
_END = re.compile(r";|\.\s|\.$|\s\(\d{1,3}\)\s")
_DOMAIN_HINTS: tuple[tuple[str, str], ...] = (
    (r"\bgdpr\b|data protection|2016/679|personal data", "DATA_PROTECTION"),
    (r"\bai act\b|artificial intelligence|2024/1689", "AI"),
    (r"\baml\b|money laundering|sanctions|terrorist financing|\bcft\b", "AML"),
    (r"\bvat\b|\btax", "TAX"),
    (r"prudential|capital adequacy|\bpru\b|\bbasel\b", "PRUDENTIAL"),
    (r"conduct of business|\bcob\b", "CONDUCT"),
    (r"market|securities|\bmkt\b", "MARKETS"),
    (r"general rulebook|\bgen\b|governance", "GOVERNANCE"),
)
_JURISDICTION_HINTS: tuple[tuple[str, str], ...] = (
    (r"\badgm\b|abu dhabi|\bfsra\b", "ADGM"),
    (r"\(eu\)|\beu\b|european|union|gdpr", "EU"),
    (r"\buk\b|united kingdom|\bfca\b", "UK"),
    (r"\bireland\b|\bie\b|revenue\.ie", "IE"),
)


@dataclass(frozen=True)
class SourceText:
    """A cited passage and what its document's metadata says."""

    text: str
    title: str = ""
    domain: str | None = None
    jurisdiction: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class KnownConcept:
    domain: str
    kind: str
    jurisdiction: str
    prefLabel: str  # the spec's SKOS field names
    altLabels: tuple[str, ...] = ()

    @classmethod
    def from_node(cls, node: GraphNode) -> KnownConcept:
        p = node.properties
        alts = p.get("altLabels")
        return cls(domain=str(p.get("domain", "")), kind=str(p.get("kind", "")),
                   jurisdiction=str(p.get("jurisdiction", "")),
                   prefLabel=str(p.get("prefLabel", "")),
                   altLabels=tuple(str(a) for a in alts) if isinstance(alts, list) else ())


@dataclass(frozen=True)
class DefinedTerm:
    term: str
    definition: str


def _singular(word: str) -> str:
    """The plural rule ``norm_label`` applies to a label's last word, for any word."""
    if len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def infer_domain(*texts: str) -> str | None:
    joined = " ".join(texts).lower()
    return next((d for pattern, d in _DOMAIN_HINTS if re.search(pattern, joined)), None)


def infer_jurisdiction(*texts: str) -> str | None:
    joined = " ".join(texts).lower()
    return next((j for pattern, j in _JURISDICTION_HINTS if re.search(pattern, joined)), None)


def _definition(text: str) -> str:
    """Up to the end of the first clause. A definition that opens a list ("means either:")
    continues on the next line, which is where its substance is."""
    first, _, rest = text.partition("\n")
    lead = re.sub(r"^(either|both|any of the following|the following)?\s*:?\s*$", "",
                  first.strip(), flags=re.I)
    text = clean_text(f"{first} {rest}" if len(lead) < 8 else first)
    text = re.sub(r"^(either|both|the following)\s*:\s*", "", text, flags=re.I)
    cut = _END.search(text)
    text = text[: cut.start()] if cut else text
    if len(text) > MAX_DEFINITION_CHARS:
        text = text[:MAX_DEFINITION_CHARS].rsplit(" ", 1)[0] + "…"
    return text.rstrip(" ,:")


def defined_terms(text: str) -> list[DefinedTerm]:
    """Terms a passage defines, in order, each once."""
    found: dict[str, DefinedTerm] = {}
    for pattern in (_QUOTED, _UNQUOTED_SHALL, _GLOSSARY):
        for m in pattern.finditer(text):
            term = clean_text(m.group("term")).rstrip(",")
            if not term or len(term.split()) > 8 or not re.search(r"[A-Za-z]{2}", term):
                continue
            definition = _definition(m.group("definition") + "\n" + m.group("next"))
            if len(definition) < 8:
                # "X means—" opens a list on the following lines: a defined term whose
                # definition this passage does not hold in one piece.
                if not (_LIST_OPENER.match(m.group("definition")) and not m.group("next")
                        .strip()[:1].isalnum()):
                    continue
                definition = ""
            found.setdefault(norm_label(term), DefinedTerm(term, definition))
    return list(found.values())


@dataclass
class _Hit:
    concept: KnownConcept
    surface: set[str] = field(default_factory=set)
    score: float = 0.0


class ConceptExtractor:
    """``extract`` returns ``{"concepts": [...]}`` shaped by ``CAPTURE_CONCEPTS_SCHEMA``."""

    def __init__(self, vocabulary: Iterable[KnownConcept] = (), *, max_concepts: int = 5,
                 min_label_chars: int = 4) -> None:
        self.max_concepts = max_concepts
        self._by_label: dict[str, list[KnownConcept]] = {}
        for concept in vocabulary:
            for label in (concept.prefLabel, *concept.altLabels):
                norm = norm_label(label)
                # Acronyms ("CDD", "SAR", "VAT") are how people ask; other short labels are
                # too often ordinary words.
                acronym = label.isupper() and len(norm) >= 2
                if len(norm) >= min_label_chars or acronym:
                    self._by_label.setdefault(norm, []).append(concept)
        labels = sorted(self._by_label, key=len, reverse=True)
        # One alternation, longest label first, so "personal data breach" wins over
        # "personal data" at the same place; an optional plural ending on the last word.
        self._pattern = re.compile(
            r"\b(" + "|".join(re.escape(x).replace(r"\ ", r"\s+") for x in labels) + r")(?:e?s)?\b"
        ) if labels else None

    @classmethod
    def from_nodes(cls, nodes: Iterable[GraphNode], **kwargs: Any) -> ConceptExtractor:
        return cls((KnownConcept.from_node(n) for n in nodes), **kwargs)

    def extract(self, question: str, answer: str = "",
                sources: Sequence[SourceText] = ()) -> dict[str, list[dict[str, Any]]]:
        domains = {d for s in sources if (d := s.domain or infer_domain(s.title))}
        hits: dict[tuple[str, str, str], _Hit] = {}
        for text, weight in ((question, 3.0), (answer, 1.0),
                             *((s.text, 0.5) for s in sources)):
            for concept, surface in self._known_in(text, domains):
                hit = hits.setdefault((concept.domain, concept.kind, concept.jurisdiction),
                                      _Hit(concept))
                hit.score += weight
                hit.surface.add(surface)
        out: list[dict[str, Any]] = []
        for hit in sorted(hits.values(), key=lambda h: -h.score):
            c = hit.concept
            alts = sorted(s for s in hit.surface if norm_label(s) != norm_label(c.prefLabel))
            out.append({"domain": c.domain, "kind": c.kind, "jurisdiction": c.jurisdiction,
                        "prefLabel": c.prefLabel, "altLabels": alts, "sourceUrls": []})
        seen = {norm_label(str(c["prefLabel"])) for c in out}
        # A cited definitions article defines dozens of terms; only those the question or
        # the answer talks about are this turn's concepts.
        talk = " " + " ".join(_singular(w) for w in norm_label(f"{question} {answer}").split())
        for source in sources:
            for item in self._defined(source):
                term = norm_label(str(item["prefLabel"]))
                words = " ".join(_singular(w) for w in term.split())
                if term not in seen and f" {words} " in f"{talk} ":
                    seen.add(term)
                    out.append(item)
        return {"concepts": out[: self.max_concepts]}

    def _known_in(self, text: str, domains: set[str]) -> list[tuple[KnownConcept, str]]:
        if self._pattern is None or not text:
            return []
        flat = clean_text(text).lower().replace("-", " ")
        found = []
        for m in self._pattern.finditer(flat):
            candidates = self._by_label.get(norm_label(m.group(1)), [])
            preferred = [c for c in candidates if c.domain in domains] or candidates
            if preferred:
                found.append((preferred[0], clean_text(text[m.start(1):m.end(1)])
                              if len(flat) == len(text) else m.group(1)))
        return found

    @staticmethod
    def _defined(source: SourceText) -> list[dict[str, Any]]:
        domain = source.domain or infer_domain(source.title, source.text[:400]) or "GENERAL"
        jurisdiction = (source.jurisdiction or infer_jurisdiction(source.title)
                        or "INTERNATIONAL")
        return [{"domain": domain, "kind": code(t.term), "jurisdiction": jurisdiction,
                 "prefLabel": t.term, "altLabels": [], "definition": t.definition,
                 "sourceUrls": [source.url] if source.url else []}
                for t in defined_terms(source.text)]
