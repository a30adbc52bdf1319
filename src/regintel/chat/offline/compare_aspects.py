"""What a focused comparison calls each of its aspects: the topic of the provisions in the row,
in words - never a rule number. A provision's topic is the title it carries ("Conflicts of
Interest: If arrangements …", where a rulebook runs a rule's title into its text), else the
heading it stands under ("Record-keeping"). A pair is named by both titles when they differ
("Complaints handling procedures for Retail Clients / Dispute resolution"). Rows that would
share a name are told apart by the heading above ("Record-keeping (staff training and
awareness)"), and, under one heading, by the words of each row's provision that the others
do not use ("Record keeping - communications with the authority")."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from regintel.chat.offline.compare_duties import duty_of
from regintel.chat.offline.compare_pairing import place_of
from regintel.chat.offline.ranking import Sentence, figures
from regintel.obligations import facts
from regintel.obligations.extract import find_modal
from regintel.obligations.lexical import content_words

MAX_NAME_CHARS = 80
PHRASE_WORDS = 6
# A title run into the rule's text: a few capitalised words and a colon, after an optional
# label ("Principle 7 Conflicts of interest: An Authorised Person must …").
_RUN_IN = re.compile(
    r"^(?:(?:principle|rule|article|section|part)\s+\d+[\w.]*\s+)?"
    r"(?P<title>[A-Z][\w'’/-]*(?:,?\s+[\w'’/-]+){0,6}?)\s*:\s*(?=\S)", re.I)
_SMALL = frozenset(("a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on",
                    "or", "the", "to", "with"))
_WORD = re.compile(r"[\w'’/-]+|[^\w\s]")
_DRAFTING = content_words("referred refers paragraph subparagraph point rule article section "
                          "chapter part regulation pursuant accordance purposes provided")


def title_of(sentence: Sentence) -> str | None:
    """The provision's own title, in words: the one run into its text, else its heading."""
    run_in = _RUN_IN.match(sentence.clean)
    if run_in and not find_modal(run_in["title"]) and not re.search(r"\d", run_in["title"]) \
            and run_in["title"][:1].isupper():
        return _cased(run_in["title"])
    place = place_of(sentence)
    return _cased(place.split(" › ")[-1]) if place else None


def parent_of(sentence: Sentence) -> str | None:
    """The heading above the provision's own ("Staff training and awareness")."""
    place = place_of(sentence)
    parts = place.split(" › ") if place else []
    return _cased(parts[-2]) if len(parts) > 1 else None


def name(cells: Sequence[Sentence]) -> str:
    """A row's name: the titles of its provisions, each once, joined; else the words of its
    first provision."""
    titles: list[str] = []
    for s in cells:
        title = title_of(s)
        if title and _key(title) not in {_key(t) for t in titles}:
            titles.append(title)
    joined = " / ".join(titles)
    if titles and len(joined) <= MAX_NAME_CHARS:
        return joined
    if titles:
        return titles[0][:MAX_NAME_CHARS]
    if not cells:
        return "Provision"
    # No title: what the provision requires ("Acknowledge every complaint of a client"),
    # else its most telling words.
    duty = duty_of(cells[0].in_context)
    if duty is not None:
        act = re.sub(rf"(?:\s+(?:{'|'.join(_SMALL)}))+$", "",
                     " ".join(duty.act.split()[:PHRASE_WORDS + 1]), flags=re.I)
        return act[:1].upper() + act[1:]
    return phrase(cells[0], frozenset())


def told_apart(rows: Sequence[tuple[str, Sequence[Sentence]]]) -> list[str]:
    """Each row's name, unique: a name several rows share is followed by the heading above
    its provisions where no other of those rows stands under the same one ("Record keeping
    (Representatives offices)"), else by its provision's own words ("Record keeping -
    communications with the authority")."""
    names = [n for n, _ in rows]
    groups: dict[str, list[int]] = {}
    for i, n in enumerate(names):
        groups.setdefault(_key(n), []).append(i)
    for members in groups.values():
        if len(members) < 2:
            continue
        parents = {i: " / ".join(dict.fromkeys(p for s in rows[i][1] if (p := parent_of(s))))
                   for i in members}
        seen = Counter(parents.values())
        words = {i: content_words(" ".join(s.in_context for s in rows[i][1])) for i in members}
        for i in members:
            if parents[i] and seen[parents[i]] == 1:
                names[i] = f"{names[i]} ({parents[i]})"
            elif rows[i][1]:
                others = frozenset().union(*(words[j] for j in members if j != i))
                names[i] = f"{names[i]} - {phrase(rows[i][1][0], others)}"
    return names


def phrase(sentence: Sentence, common: frozenset[str]) -> str:
    """The run of at most PHRASE_WORDS words of the provision, within one clause, that holds
    most of its content words not in ``common``: what this provision is about that the
    others are not ("communications with the authority")."""
    text = sentence.clean
    if run_in := _RUN_IN.match(text):
        text = text[run_in.end():]
    # Not its figures or when they run from ("six years from the date the report was
    # made"), nor the words that point elsewhere in the text ("referred to in paragraph 1").
    common = common | _DRAFTING | content_words(" ".join(
        figures(text) + [f.text for f in facts.starts(text)]))
    tokens = _WORD.findall(text)
    best: tuple[int, int, int, int] | None = None  # (score, -start, start, end)
    for start, token in enumerate(tokens):
        if not _content(token, common):
            continue
        score = 0
        for end in range(start, min(len(tokens), start + PHRASE_WORDS)):
            if not re.match(r"[\w'’/-]", tokens[end]):
                break  # a clause ends
            if _content(tokens[end], common):
                score += 1
                if best is None or (score, -start) > best[:2]:
                    best = (score, -start, start, end + 1)
    if best is None:
        return " ".join(text.split()[:PHRASE_WORDS]).rstrip(",;:.")
    start, end = best[2], best[3]
    # A name is not cut in two ("Regulated Activities", "Authorised Person").
    while start > 0 and _capital(tokens[start - 1]) and _capital(tokens[start]):
        start -= 1
    while end < len(tokens) and _capital(tokens[end]) and _capital(tokens[end - 1]):
        end += 1
    return " ".join(tokens[start:end])


def _capital(token: str) -> bool:
    return token[:1].isupper() and token.lower() not in _SMALL


def _content(token: str, common: frozenset[str]) -> bool:
    found = content_words(token)
    return bool(found) and not found <= common and token.lower() not in _SMALL


def _cased(text: str) -> str:
    """A heading in capitals in sentence case ("GENERAL COMPLIANCE REQUIREMENTS" → "General
    compliance requirements"); acronyms ("IT/OT") and mixed case stay as written."""
    text = " ".join(text.split()).strip(" :.-–")
    letters = [c for c in text if c.isalpha()]
    if not letters or sum(c.isupper() for c in letters) < 0.8 * len(letters):
        return text
    words = []
    for i, word in enumerate(text.split()):
        acronym = ("/" in word or len(word.strip(",.()")) <= 3) and \
            word.lower().strip(",.()") not in _SMALL
        words.append(word if acronym else (word.capitalize() if i == 0 else word.lower()))
    return " ".join(words)


def _key(text: str) -> str:
    """Names alike but for case, hyphens and spaces ("Record-keeping", "Record Keeping")."""
    return re.sub(r"[\W_]+", "", text.lower())
