"""Offline document resolution: implicit references ("that regulation", "those two docs",
"the policy above", "it") resolved against the thread's registry of documents in play.

The rules mirror the spec's confidence tiers: one candidate of the right kind → high; several
candidates where one is needed → medium (confirm); a reference with nothing to point at, or a
named document that was never in play → low (ask)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from regintel.chat.engine import ReferenceResolution
from regintel.chat.state import DocRef
from regintel.domain.chat import Action
from regintel.domain.documents import Document

_REGULATION_NOUNS = r"regulations?|rules?|rulebooks?|guidelines?|guidance|laws?|acts?|directives?"
_POLICY_NOUNS = r"polic(?:y|ies)|procedures?|manuals?"
_ANY_NOUNS = r"docs?|documents?|files?|sources?|ones?|texts?"
_NOUN = rf"(?:{_REGULATION_NOUNS}|{_POLICY_NOUNS}|{_ANY_NOUNS})"
_DETERMINER = r"(?:that|those|these|this|the|both|same|previous|earlier|above|last)"
# "that regulation", "those two docs", "the policy above", "both documents", "the same docs"
_PHRASE = re.compile(
    rf"\b{_DETERMINER}\s+(?:(?:two|three|four|five|\d|same|previous|earlier|above|last|"
    rf"other|first|second)\s+)*(?P<noun>{_NOUN})\b(?:\s+(?:above|earlier|before|mentioned))?",
    re.I)
# Pronouns refer to documents only after a verb or preposition that takes a document
# ("compare it with", "does it require", "audit them"); "when it suspects" is not a reference.
_PRONOUN = re.compile(
    r"\b(?:summari[sz]e|compare|audit|check|review|explain|about|in|does|do|did|is|are|"
    r"against|with|from|under|of)\s+(?:it|them|both|these|those)\b(?!\s+(?:who|which|that)\b)",
    re.I)
# A named document: "the FSA guidelines", "the Regulation", "Market Rules" — a capitalised name next
# to a document noun, or an all-caps acronym. Not a noun used as a verb ("a Reporting Person
# file a report", "the Firm acts as"), nor a generic plural ("the credit policies of a firm").
_NAMED = re.compile(
    rf"\b(?:the\s+)?(?P<name>(?:[A-Z][\w&'-]*\s+){{0,3}}[A-Z][\w&'-]*)\s+(?i:{_NOUN})\b"
    r"(?!\s+(?:a|an|the|as|its|their|his|her|any|every|all|each)\b"
    r"|\s+of\s+(?:a|an|any|each|every)\b)")
_ACRONYM = re.compile(r"\b[A-Z]{2,}[A-Z0-9]*\b")
_STOP_NAMES = {"I", "The", "What", "Which", "Does", "Do", "Is", "Are", "Please", "Our", "My",
               "Summarize", "Summarise", "Compare", "Audit", "How", "Can", "Could", "And"}
_PLURAL = re.compile(r"\b(?:those|these|both|two|three|four|five|them|they)\b", re.I)
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "both": 2}


def _kind(noun: str) -> str | None:
    noun = noun.lower()
    if re.fullmatch(_REGULATION_NOUNS, noun):
        return "regulation"
    if re.fullmatch(_POLICY_NOUNS, noun):
        return "policy"
    return None


def _wanted_count(message: str, phrase: str) -> int | None:
    for word, n in _NUMBERS.items():
        if re.search(rf"\b{word}\b", phrase, re.I):
            return n
    if _PLURAL.search(phrase) or phrase.lower().rstrip().endswith("s"):
        return None  # several, number unknown
    return 1


def _names(message: str) -> list[tuple[str, bool]]:
    """Names that may be documents, each with whether it is used as a document ("the FSA
    guidelines") rather than only mentioned (an acronym such as "SLA" in a question)."""
    named = [_clean(m.group("name")) for m in _NAMED.finditer(message)]
    found = [(n, True) for n in named if n]
    found += [(a, False) for a in _ACRONYM.findall(message) if a not in named]
    return found


def before_document_noun(message: str, at: int) -> bool:
    return bool(re.match(rf"\s+(?i:{_NOUN})\b", message[at:]))


def document_phrases(message: str) -> list[tuple[str, str | None, tuple[int, int]]]:
    """Each capitalised name used as a document ("the General Rulebook"), with the kind its
    noun implies and the span of the name."""
    found = []
    for m in _NAMED.finditer(message):
        name = _clean(m.group("name"))
        noun = message[m.end("name"):m.end()].split()
        if name and noun:
            found.append((name, _kind(noun[-1]), m.span("name")))
    return found


def generic_reference(message: str) -> bool:
    """Whether the message's only reference to documents is "the <noun>" used generically
    ("What are the rules on gifts?", "What does the regulation say about outsourcing?"): no
    demonstrative ("this rulebook", "those rules"), no pronoun ("summarise it"), which point
    at something in particular."""
    text = re.sub(r"@\[[^\]]*\]|@\S+", " ", message)
    phrases = [m.group(0) for m in _PHRASE.finditer(text)]
    generic = [p for p in phrases if p.lower().startswith("the ") and not _PARTICULAR.search(p)]
    return bool(phrases) and generic == phrases and not _PRONOUN.search(text)


# "the same rules", "the previous document", "the two policies", "the regulation above":
# the definite article pointing back at particular documents.
_PARTICULAR = re.compile(r"^the\s+(?:same|previous|earlier|above|last|other|first|second|"
                         r"two|three)\b|\b(?:above|earlier|before|mentioned)$", re.I)


def _clean(name: str) -> str:
    words = re.sub(r"['\u2019]s$", "", name).split()  # "the Act's rules" names the Act
    while words and words[0] in _STOP_NAMES:
        words = words[1:]
    return " ".join(words)


def _matches(name: str, ref: DocRef) -> bool:
    return names(name, ref["title"])


def names(name: str, title: str) -> bool:
    """Every word of the name is in the title, or the name is an acronym of title words
    ("MKT" for "Market Conduct Rules")."""
    words = [w.lower() for w in re.findall(r"\w+", name) if w not in _STOP_NAMES]
    if words and all(re.search(rf"\b{re.escape(w)}", title.lower()) for w in words):
        return True
    initials = "".join(w[0] for w in re.findall(r"[A-Z][A-Za-z]*", title))
    return name.isupper() and len(name) >= 2 and name in initials


def resolve(message: str, action: Action, explicit: Sequence[Document],
            registry: Sequence[DocRef]) -> ReferenceResolution:
    explicit_ids = {str(d.id) for d in explicit}
    in_play = [r for r in registry if r["id"] not in explicit_ids]
    # Strip "@Title" mentions: they are explicit, not references.
    text = re.sub(r"@\[[^\]]*\]|@\S+", " ", message)

    # 1. A document named in the message.
    for name, as_document in _names(text):
        noun = re.search(rf"{re.escape(name)}\s+(?P<noun>(?i:{_NOUN}))\b", text)
        kind = _kind(noun.group("noun")) if noun else None
        if any(_matches(name, _ref(d)) for d in explicit) or (
                kind and not any(r["doc_type"] == kind for r in in_play)
                and any(d.doc_type.value == kind for d in explicit)):
            continue  # "audit this against @MKT — the market rules": the tagged document
        named = [r for r in in_play if _matches(name, r)]
        if named:
            return ReferenceResolution(
                True, [named[-1]["id"]], "high",
                f"'{name}' names {named[-1]['title']}, already in this conversation")
        if as_document and not any(_matches(name, r) for r in registry):
            return ReferenceResolution(
                True, [], "low", f"'{name}' is not a document of this conversation",
                unmatched=name, unmatched_kind=kind)

    # 2. A referring phrase or pronoun.
    phrase = _PHRASE.search(text)
    pronoun = _PRONOUN.search(text)
    if phrase or pronoun:
        kind = _kind(phrase.group("noun")) if phrase else None
        wanted = _wanted_count(text, phrase.group(0)) if phrase else None
        candidates = [r for r in in_play if kind is None or r["doc_type"] == kind]
        if phrase and re.match(r"(?i)th(?:is|ese)\b", phrase.group(0)) and any(
                kind is None or d.doc_type.value == kind for d in explicit):
            # "summarize @X — this regulation": the phrase points at the tagged document.
            return ReferenceResolution(False, [], "none", "the phrase refers to the tagged "
                                       "documents")
        label = phrase.group(0) if phrase else pronoun.group(0) if pronoun else ""
        if not candidates and (phrase is None or explicit):
            # "compare these documents" with tags: the phrase points at the tagged documents.
            return ReferenceResolution(False, [], "none", "no other document in play")
        if not candidates:
            return ReferenceResolution(
                True, [], "low", f"'{label}' has nothing to refer to in this conversation")
        latest = max(r["turn"] for r in candidates)
        recent = [r for r in candidates if r["turn"] == latest]
        if wanted is None:  # "those docs", "them": the documents of the latest turn
            return ReferenceResolution(True, [r["id"] for r in recent], "high",
                                       f"'{label}' refers to the documents of the last turn")
        if len(candidates) == wanted:
            return ReferenceResolution(
                True, [r["id"] for r in candidates], "high",
                f"'{label}' can only mean {_titles(candidates)}")
        if len(recent) == wanted and wanted > 1:
            return ReferenceResolution(True, [r["id"] for r in recent], "high",
                                       f"'{label}' refers to {_titles(recent)}")
        if len(candidates) > wanted:
            return ReferenceResolution(
                True, [], "medium", f"'{label}' could mean {_titles(candidates)}",
                candidates=[r["id"] for r in candidates])
        return ReferenceResolution(
            True, [r["id"] for r in candidates], "medium",
            f"'{label}' asks for {wanted} documents; {len(candidates)} are in play",
            candidates=[r["id"] for r in candidates])

    # 3. No reference at all: an action that needs documents continues with the last turn's.
    if not explicit and action in (Action.COMPARE, Action.SUMMARIZE, Action.AUDIT) and registry:
        latest = max(r["turn"] for r in registry)
        recent = [r for r in registry if r["turn"] == latest]
        needed = 2 if action in (Action.COMPARE, Action.AUDIT) else 1
        if len(recent) >= needed:
            return ReferenceResolution(
                True, [r["id"] for r in recent], "high",
                f"no document named: continuing with {_titles(recent)} from the last turn")
    return ReferenceResolution(False, [], "none", "no implicit reference")


def _ref(d: Document) -> DocRef:
    return DocRef(id=str(d.id), title=d.title, version=d.version, doc_type=d.doc_type.value,
                  turn=0)


def _titles(refs: Sequence[DocRef]) -> str:
    return " and ".join(r["title"] for r in refs)
