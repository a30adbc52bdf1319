"""Whether a sentence binds (must, shall, is required to, a prohibition…) and whom it names
before its verb: what an answer's ranking and a summary's key duties are chosen by."""

from __future__ import annotations

import re

# "must", "shall", "is required to" … and prohibitions; "should" is guidance, "may" a licence,
# but "may only" (or "may … only if") a condition. "Remains responsible" binds too: the duty
# of a firm that outsources or relies on others; and so does "is responsible for", which gives
# a duty its holder, and "responsibility for … lies with …".
_MODAL = re.compile(r"\b(must|shall|is required to|are required to|is obliged to|are obliged "
                    r"to|is prohibited|are prohibited|may not|may only|is to be|are to be|"
                    r"remains? (?:fully |ultimately |solely )?(?:responsible|liable)|"
                    r"(?:is|are) (?:fully |ultimately |solely )?responsible for|"
                    r"responsibility for\b[^.;]{0,80}?\blies with|"
                    # "may transfer … only if …": a licence on a condition, a restriction
                    r"may\b[^.;]{0,120}?\bonly (?:if|where|when|after|to the extent))\b", re.I)
# A capitalised kind of person after "a"/"an": how drafting names whom a rule binds.
_KIND = re.compile(r"\b[Aa]n? ((?:[A-Z][\w/-]*\b ?){1,4})")
_EXCEPT = re.compile(r"(?:other than|except|excluding|not)\s*$", re.I)


# "shall be construed as", "shall be read as", "shall be deemed", "shall mean": how a text is
# to be read, which binds no one to do anything.
_READING = re.compile(r"\b(?:shall|must|is to|are to) (?:be (?:construed|read|interpreted|"
                      r"deemed|taken|understood|treated|regarded|considered)|mean|have the "
                      r"meaning|include)\b", re.I)


def binds(text: str) -> bool:
    """The text says must/shall/required (not "should" or "may"), of something to do rather
    than of how a text is to be read."""
    return any(not _READING.match(text, m.start()) for m in _MODAL.finditer(text))


def kinds_named(text: str) -> list[str]:
    """The kinds of person a sentence names before its verb ("An Authorised Person or a
    Recognised Body must …" names both), leaving out those excepted ("other than a …")."""
    modal = _MODAL.search(text)
    head = text[:modal.start()] if modal else text
    return [" ".join(m[1].split()) for m in _KIND.finditer(head)
            if not _EXCEPT.search(head[:m.start()])]
