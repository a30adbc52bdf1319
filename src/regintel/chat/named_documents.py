"""Documents a message names, found in the tenant's library the way an @mention would be: by
the short name a title gives in parentheses ("… Market Conduct Rulebook (MCR)" is "MCR"),
by an acronym the title carries ("FSMA (Act 2000 c. 8)" is "the FSMA"), or by title words
before a document noun ("the General Rulebook", "the MCR rules").

Users name documents as practitioners do, rarely by the exact title; a name that fits more
than one document names none of them (the resolver then asks, as for any other ambiguity)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from regintel.chat.offline import references
from regintel.domain.documents import DocStatus, Document

_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,9}\b")
# A title's acronyms outside parentheses must be this long to name it alone: "EU" or "UK" in
# a title is a place, and questions mention places ("a vendor outside the EU").
_MIN_TITLE_ACRONYM = 3


def _top_level_groups(title: str) -> Iterable[str]:
    """The text of each top-level parenthesised group: "(MCR)" but not the "(EU)" inside
    "(Regulation (EU) 2016/679)", which qualifies a citation rather than naming the title."""
    depth, start = 0, 0
    for i, ch in enumerate(title):
        if ch == "(":
            depth += 1
            if depth == 1:
                start = i + 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                yield title[start:i]


def short_names(title: str) -> set[str]:
    return {g.strip() for g in _top_level_groups(title) if _ACRONYM.fullmatch(g.strip())}


def _outside_parentheses(title: str) -> str:
    for group in _top_level_groups(title):
        title = title.replace(f"({group})", " ")
    return title


def title_acronyms(title: str) -> set[str]:
    return {a for a in _ACRONYM.findall(_outside_parentheses(title))
            if len(a) >= _MIN_TITLE_ACRONYM}


def may_name_documents(message: str) -> bool:
    """Whether the message has anything that could name a document (so the library is read
    only for messages that may need it)."""
    return bool(_ACRONYM.search(message) or references.document_phrases(message))


def initials_of(name: str) -> str:
    """The acronym a name's capitalised words make ("Market Conduct Rules" is "MCR"); the
    small words between them do not count ("Markets in Financial Instruments" is "MFI")."""
    return "".join(w[0] for w in re.findall(r"[A-Z][A-Za-z]*", name))


def _slash_joined(text: str, start: int, end: int) -> str | None:
    """The whole token when text[start:end] is one side of a slash-joined pair ("XYZ" in
    "ABC/XYZ"), else None."""
    if (start and text[start - 1] == "/") or text[end:end + 1] == "/":
        left = re.search(r"[\w/-]*$", text[:start])
        right = re.match(r"[\w/-]*", text[end:])
        return (left.group(0) if left else "") + text[start:end] + (right.group(0)
                                                                    if right else "")
    return None


def document_noun_at(text: str, at: int) -> bool:
    """Whether a document noun follows ``at`` ("these rules", "this rulebook")."""
    return references.before_document_noun(text, at)


def named_documents(message: str, library: Sequence[Document]) -> list[Document]:
    """The ready documents ``message`` names, in the order it names them.

    A slash-joined abbreviation ("PQR/XYZ", "ABC/XYZ") is a pair of concepts, not a name: it
    names a document only when a title holds it whole ("ABC/XYZ" in "… ABC/XYZ Policy")."""
    text = re.sub(r"@\[[^\]]*\]|@\S+", " ", message)  # @mentions are tagged, not named
    ready = [d for d in library if d.status == DocStatus.READY]
    found: list[tuple[int, Document]] = []
    phrases = [p for p in references.document_phrases(text)
               if _slash_joined(text, *p[2]) is None]
    for name, kind, (start, end) in phrases:
        fits = [d for d in ready if (kind is None or d.doc_type.value == kind)
                and references.names(name, d.title)]
        if len(fits) > 1:  # "the General Rulebook": the noun tells the titles apart
            noun = text[end:].split()[0].rstrip(".,;:?!").lower() if text[end:].split() else ""
            fits = [d for d in fits if re.search(rf"\b{re.escape(noun)}\b", d.title.lower())] \
                or fits
        if len(fits) == 1:
            found.append((start, fits[0]))
    for m in _ACRONYM.finditer(text):
        # An acronym before a document noun is read with it: "our XYZ policy" is a policy, and
        # "the XYZ policies of a firm" are anyone's (``document_phrases`` tells them apart).
        joined = _slash_joined(text, *m.span())
        if joined is not None:
            whole = [d for d in ready if re.search(rf"(?<![\w/]){re.escape(joined)}(?![\w/])",
                                                   d.title)]
            if len(whole) == 1:
                found.append((m.start(), whole[0]))
            continue
        if any(start <= m.start() < end for _, _, (start, end) in phrases) or \
                references.before_document_noun(text, m.end()):
            continue
        doc = _by_acronym(m.group(0), ready)
        if doc is not None:
            found.append((m.start(), doc))
    found += _spelled_out(text, ready)
    ordered: dict[str, Document] = {}
    for _, doc in sorted(found, key=lambda pair: pair[0]):
        ordered.setdefault(str(doc.id), doc)
    return list(ordered.values())


def _spelled_out(text: str, ready: Sequence[Document]) -> list[tuple[int, Document]]:
    """Documents named by the words their short name stands for ("the Market Abuse Regulation"
    for "MAR (…)"), or by their short name written in lower case before a
    document noun ("the cobs rulebook")."""
    found: list[tuple[int, Document]] = []
    for m in re.finditer(r"(?:[A-Z][\w-]*\s+(?:(?:of|and|in|on|for)\s+)?){1,6}[A-Z][\w-]*",
                         text):
        words = m.group(0).split()
        for cut in (len(words), len(words) - 1):  # with and without a closing noun
            initials = initials_of(" ".join(words[:cut]))
            doc = _by_acronym(initials, ready) if len(initials) >= _MIN_TITLE_ACRONYM else None
            if doc is not None:
                found.append((m.start(), doc))
                break
    for d in ready:
        for name in short_names(d.title):
            for m in re.finditer(rf"\b{re.escape(name.lower())}\b", text):
                if references.before_document_noun(text, m.end()):
                    found.append((m.start(), d))
    return found


def _by_acronym(acronym: str, ready: Sequence[Document]) -> Document | None:
    # A title's own short name outranks an acronym another title merely contains ("MCR" is
    # the rulebook's "(MCR)", not the firm's "MCR/KPI Policy").
    for names_of in (short_names, title_acronyms):
        fits = [d for d in ready if acronym in names_of(d.title)]
        if len(fits) == 1:
            return fits[0]
        if fits:
            return None
    return None


def without_document_names(message: str, documents: Sequence[Document]) -> str:
    """``message`` with the names it gives ``documents`` taken out ("Compare the MCR Rulebook
    and the FSMA on record keeping" leaves "Compare the and on record keeping"), so what is left
    is what the message is about."""
    text = message
    for d in documents:
        text = re.sub(re.escape(d.title), " ", text, flags=re.I)
    cut: list[tuple[int, int]] = []
    for name, kind, (start, _) in references.document_phrases(text):
        if any((kind is None or d.doc_type.value == kind) and references.names(name, d.title)
               for d in documents):
            noun = re.match(r"[\w'’]*\s+\w+", text[start:])
            cut.append((start, start + (noun.end() if noun else len(name))))
    acronyms = {a for d in documents for a in short_names(d.title) | title_acronyms(d.title)}
    cut += [m.span() for m in _ACRONYM.finditer(text) if m.group(0) in acronyms]
    cut += _title_runs(text, documents)
    for start, end in sorted(_merged(cut), reverse=True):
        text = text[:start] + " " + text[end:]
    return text


def _title_runs(text: str, documents: Sequence[Document]) -> list[tuple[int, int]]:
    """Spans of two or more words, one of them capitalised, that are all words of one
    document's title: "the Client Assets Rulebook" for the "Client Assets and Custody
    Rulebook (CAR)", which a shortened name leaves behind in part ("Client Assets")."""
    spans: list[tuple[int, int]] = []
    words = list(re.finditer(r"[\w'’-]+", text))
    for d in documents:
        vocabulary = {w.lower() for w in re.findall(r"[\w'’-]+", d.title)}
        run: list[re.Match[str]] = []
        for word in [*words, None]:
            if word is not None and word.group(0).lower() in vocabulary:
                run.append(word)
                continue
            if len(run) >= 2 and any(w.group(0)[0].isupper() for w in run):
                spans.append((run[0].start(), run[-1].end()))
            run = []
    return spans


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping spans as one, so each piece of text is cut once."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out
