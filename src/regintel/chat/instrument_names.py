"""Legal instruments a question uses as its source ("under MiFID II", "the UK MLR 2017",
"according to the FCA Handbook", "what does the Companies Act 2006 require") that the
library holds no document for, and the plain sentence that says so.

Read from the question's grammar and the library's own titles, never from a vocabulary of
any regulation. A name is a run of capitalised words: abbreviations ("MLR", "MiFID") and
title-case words, with a version or year after them ("II", "2017", "2015/849"). It names an
instrument when the question uses it as one: it ends in a capitalised instrument noun ("…
Regulations 2017", "the FCA Handbook"), or stands where a source stands ("under X",
"according to X", "X says", "X Article 5"; "in X" only with a version: "in MiFID II"). The
abbreviations questions use for concepts ("file a report", "ABC/XYZ checks", "the officer", "a
KPI") stand as objects and modifiers, so they are none of these; a slash-joined pair is a
pair of concepts. A bare abbreviation used as a source ("under XYZ") that the evidence itself
uses is a term the library covers, not a missing document (``still_unheld``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from regintel.chat.named_documents import (
    initials_of,
    named_documents,
    short_names,
    title_acronyms,
)
from regintel.domain.documents import ChunkHit, Document
from regintel.retrieval import abbreviations

_ABBREVIATION = r"[A-Z][A-Za-z]*[A-Z][A-Za-z0-9]*"        # MLR, MiFID, PSD2, UK
_WORD = r"[A-Z][a-z]+(?:-[A-Z]?[a-z]+)*"                    # Companies, Anti-Money
_VERSION = r"(?:[IVX]{1,4}|\d{1,4}(?:/\d{1,4})?)"           # II, 2017, 2015/849
MAX_LISTED = 3  # documents the evidence came from, named in the answer's first sentence
# Lower-case words inside a name ("Markets in Financial Instruments Directive").
_JOIN = r"(?:of|on|in|and|for|the|to)"
_RUN = re.compile(
    rf"(?<![\w/-])(?:{_ABBREVIATION}|{_WORD})(?:\s+(?:{_JOIN}\s+)?(?:{_ABBREVIATION}|{_WORD}))*"
    rf"(?:\s+{_VERSION}\b)*(?![\w/])")
# Nouns that make a capitalised name an instrument by themselves: "the Companies Act" is one,
# "the Conduct Rules" may be a chapter of a rulebook, "Retail Client" a defined term.
_INSTRUMENT = re.compile(r"(?:Regulations?|Act|Directive|Rulebook|Handbook|Sourcebook|Code|"
                         r"Law|Ordinance|Decree|Guidelines|Convention|Treaty)")
# The same nouns in lower case name an instrument after an abbreviation ("the FSA
# guidelines"); "rules" is left out, as questions say "the XYZ rules" for a topic.
_LOWER_INSTRUMENT = re.compile(r"\s+(?:regulations?|act|directive|rulebook|handbook|sourcebook|"
                               r"code|guidelines)\b")
# A provision after a name: the name is the instrument it belongs to ("MAR Article 39").
_PROVISION = re.compile(r"(?:Article|Art\.|Section|Rule|Chapter|Part|Schedule|Annex|Recital|"
                        r"Paragraph)\s*\d", re.I)
_BEFORE_SOURCE = re.compile(r"\b(?P<cue>under|according\s+to|pursuant\s+to|per|in|of|from|"
                            r"summari[sz]e|compare|against|versus|vs\.?)\s+(?:the\s+)?$", re.I)
# The second document of a comparison: "compare MiFID II and COBS".
_SECOND_COMPARED = re.compile(r"\bcompare\b[^.?!;]*\b(?:and|with)\s+(?:the\s+)?$", re.I)
# "in XYZ" is a topic, "in MiFID II" a source: these cues need a name with a version.
_VERSIONED_ONLY = {"in", "of", "from"}
_SOURCE_VERB = re.compile(r"\s+(?:says?|said|states?|stated|requires?|required|provides?|"
                          r"prescribes?|stipulates?|mandates?|defines?)\b", re.I)
# Sentence words a capitalised run may start with that are no part of a name.
_FUNCTION = {"a", "an", "the", "what", "when", "where", "which", "who", "whom", "whose", "why",
             "how", "does", "do", "did", "is", "are", "was", "were", "can", "could", "should",
             "must", "may", "will", "would", "shall", "under", "according", "in", "on", "for",
             "of", "to", "and", "or", "but", "if", "our", "my", "we", "you", "it", "they",
             "this", "these", "that", "those", "please", "tell", "explain", "list", "give",
             "show", "summarise", "summarize", "compare", "audit", "check", "per", "pursuant",
             "as", "by", "from", "with", "there", "any", "all", "each", "every", "no", "not"}


@dataclass(frozen=True)
class Name:
    text: str     # as the question writes it, without an article ("UK MLR 2017")
    plain: bool   # a bare abbreviation: no version, no instrument noun ("FSMR")


def sources(message: str) -> list[Name]:
    """The names ``message`` uses as the source of what it asks, in order."""
    text = re.sub(r"@\[[^\]]*\]|@\S+", " ", message)  # @mentions are tagged documents
    found: dict[str, Name] = {}
    for tokens in _runs(text):
        while tokens and tokens[0][0].lower() in _FUNCTION:  # "What", "Under the"
            tokens = tokens[1:]
        provision = next((i for i, (_, at) in enumerate(tokens) if _PROVISION.match(text, at)),
                         None)
        tokens = tokens[:provision]  # "MAR Article 39": the instrument is "MAR"
        while tokens and re.fullmatch(_JOIN, tokens[-1][0]):
            tokens = tokens[:-1]
        if not tokens:
            continue
        words = [w for w, _ in tokens]
        kind = _kind(words)
        if kind is None:
            continue
        start, end = tokens[0][1], tokens[-1][1] + len(tokens[-1][0])
        before = _BEFORE_SOURCE.search(text[:start])
        after = text[end:]
        used_as_source = (
            (before is not None and (kind != "plain" or before.group("cue").lower()
                                     not in _VERSIONED_ONLY))
            or bool(_SOURCE_VERB.match(after)) or bool(_SECOND_COMPARED.search(text[:start]))
            or provision is not None or bool(_PROVISION.match(after.lstrip())))
        named_as = _LOWER_INSTRUMENT.match(after) if kind == "plain" else None
        if named_as is not None and _topic(words[-1], named_as.group(0)):
            continue
        if named_as is not None:  # "the FSA guidelines": the name with its noun
            end += named_as.end()
        if kind == "instrument" or used_as_source or named_as is not None:
            name = text[start:end]
            found.setdefault(name, Name(name, plain=kind == "plain"))
    return list(found.values())


# The lower-case nouns after an abbreviation of a concept that make a topic, not a source:
# "the ABC guidelines" are the rules on ABC wherever they stand.
_TOPIC_NOUN = re.compile(r"\s+(?:guidelines|regulations?)", re.I)


def _topic(abbreviation: str, noun: str) -> bool:
    """Whether "the <abbreviation> <noun>" names a topic's rules: the abbreviation is one
    practitioners write for a concept (its usual expansion is a common noun phrase, "know
    your customer", not a proper name, "Financial Action Task Force") and the noun is one
    questions put after a topic ("guidelines", "regulations"), not a book ("rulebook")."""
    table = abbreviations.bundled()
    long = table.get(abbreviation) or table.get(abbreviation.removesuffix("s"))
    return long is not None and long == long.lower() and bool(_TOPIC_NOUN.fullmatch(noun))


def without(message: str, names: Sequence[Name]) -> str:
    """``message`` less ``names`` (the instruments it names that the library lacks): "the
    Market Conduct Regulations 2017" names no document, so its title words must not narrow
    the search to the library's "Market Conduct Rules" while the answer says that instrument
    is missing."""
    for name in names:
        message = message.replace(name.text, " ")
    return message


def _runs(text: str) -> list[list[tuple[str, int]]]:
    """Each run of capitalised words as (word, offset) pairs, split at an "and" between two
    names ("MiFID II and COBS"), kept whole between title words ("Market Conduct and
    Sanctions Rules")."""
    out: list[list[tuple[str, int]]] = []
    for run in _RUN.finditer(text):
        tokens = [(t.group(0), run.start() + t.start())
                  for t in re.finditer(r"\S+", run.group(0))]
        current: list[tuple[str, int]] = []
        for i, (word, at) in enumerate(tokens):
            if word == "and" and current and i + 1 < len(tokens) and (
                    re.fullmatch(_ABBREVIATION, tokens[i + 1][0])
                    or re.fullmatch(_ABBREVIATION + "|" + _VERSION, current[-1][0])):
                out.append(current)
                current = []
                continue
            current.append((word, at))
        out.append(current)
    return out


def _kind(words: list[str]) -> str | None:
    """"instrument" (title words ending in an instrument noun: "the Companies Act"),
    "versioned" (an abbreviation with a version: "MiFID II"), "plain" (an abbreviation
    alone), or None (title-case words only: a defined term such as "Retail Client")."""
    versions = [w for w in words if re.fullmatch(_VERSION, w)]
    core = list(words)
    while core and re.fullmatch(_VERSION, core[-1]):
        core.pop()
    # "the Companies Act 2006", "Directive 2015/849"; a bare "the Regulation" names nothing.
    if core and _INSTRUMENT.fullmatch(core[-1]) and len(words) > 1:
        return "instrument"
    if not any(re.fullmatch(_ABBREVIATION, w) for w in words if w not in versions):
        return None
    return "versioned" if versions else "plain"


def held(name: str, library: Sequence[Document]) -> bool:
    """Whether ``name`` is a name the library itself gives one of its documents: a title or
    its words, a short name or acronym ("FSMR"; "EU MAR" is the MAR's acronym beside a
    word of its title), or the words an acronym of a title stands for ("Market Abuse
    Regulation" for "MAR (…)")."""
    # A year or version the name gives must be the document's own: "the Market Conduct
    # Regulations 2017" is not "Market Conduct … Rules (VER09)".
    versions = [w for w in name.split()[1:] if re.fullmatch(_VERSION, w)]
    library = [d for d in library
               if all(v in d.title or v in (d.version or "") for v in versions)]
    if named_documents(name, library):
        return True
    titles = [d.title for d in library]
    bare = re.sub(rf"(?:\s+{_VERSION})+$", "", name)
    if any(bare.lower() in t.lower() for t in titles):
        return True
    acronyms = {a for t in titles for a in short_names(t) | title_acronyms(t)}
    words = bare.split()
    abbreviations = [w for w in words if re.fullmatch(_ABBREVIATION, w)]
    if _kind(words) != "instrument" and set(abbreviations) & acronyms and all(
            any(re.search(rf"\b{re.escape(w)}\b", t) for t in titles) for w in abbreviations):
        return True
    wanted = {initials_of(bare)}
    if _INSTRUMENT.fullmatch(words[-1]):
        wanted.add(initials_of(" ".join(words[:-1])))
    return bool(wanted & acronyms)


def unheld(message: str, library: Sequence[Document]) -> list[Name]:
    """The instruments ``message`` uses as sources that no document of ``library`` is."""
    return [n for n in sources(message) if not held(n.text, library)]


def not_in_library(names: Sequence[str]) -> str:
    """"MiFID II is not in your library": the words the answer or the question asked back
    starts with (and the benchmark looks for)."""
    return f"{_listed(names)} {'is' if len(names) == 1 else 'are'} not in your library"


def answer_opening(names: Sequence[str], hits: Sequence[ChunkHit],
                   searched: Sequence[str]) -> str:
    """The answer's first sentence: which named instruments the library does not have, and
    what was searched instead (the documents the turn resolved, else those the evidence came
    from); with no evidence, how to get the instrument in."""
    missing = not_in_library(names)
    found = list(searched) or list(dict.fromkeys(h.document_title for h in hits
                                                 if h.completes is None))[:MAX_LISTED]
    if found:
        return f"{missing}; the answer below is from the documents searched instead: " \
               f"{_listed(found)}."
    return f"{missing}. Please upload it, or tag the documents to use with @."


def still_unheld(names: Sequence[Name], hits: Sequence[ChunkHit]) -> list[str]:
    """``names`` less the bare abbreviations the evidence itself uses as terms: those are what
    the library's documents talk about ("under XYZ"), not documents missing from it."""
    text = " ".join(h.text for h in hits)
    return [n.text for n in names if not (n.plain and re.search(
        rf"\b{re.escape(_head(n.text))}\b", text))]


def _head(name: str) -> str:
    """The abbreviation a bare name stands on: "FSA" of "FSA guidelines", "MLR" of "UK MLR"."""
    return [w for w in name.split() if re.fullmatch(_ABBREVIATION, w)][-1]


def _listed(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
