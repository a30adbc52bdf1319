"""The engine's reading of a message's references to documents (``resolve_references``),
read again without the questions back a compliance officer would find needless (issue 49):

- a name that is no document of the library is searched for, not asked about: it is a
  concept ("the ABC/XYZ rules"), or an instrument the library lacks, which the answer says
  first (``instrument_names``);
- "these regulations", "this rulebook" are the tagged documents, else the thread's latest,
  else those the thread's last answer cited (a turn that searched the whole library has
  documents in front of the user all the same).

A reference with nothing at all to point at is still asked about, as the spec has it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from regintel.chat import repeats
from regintel.chat.engine import ReferenceResolution
from regintel.chat.named_documents import document_noun_at, named_documents
from regintel.chat.offline import references
from regintel.chat.state import DocRef
from regintel.domain.documents import Document

# "these regulations", "this rulebook": the documents the user has in front of them.
_THESE = re.compile(r"\b(?:this|these)(?=\s+\w)", re.I)


def reread(found: ReferenceResolution, message: str, explicit: Sequence[Document],
           registry: Sequence[DocRef], ready: Sequence[Document],
           memory: Mapping[str, Any] | None, limit: int, *,
           ask_only: bool = True) -> ReferenceResolution:
    """``found`` with its needless low or medium readings replaced (``ready``: the library's
    ready documents; ``memory``: the thread's, for what its last answer cited; ``ask_only``:
    the turn asks a question, which needs no particular document, unlike a comparison)."""
    if found.inference_confidence not in ("low", "medium"):
        return found
    these = [m.group(0).lower() for m in _THESE.finditer(message)
             if document_noun_at(message, m.end())]
    # A medium reading of "this regulation" among several stays a question; "these" are all.
    if found.inference_confidence == "medium" and "these" not in these:
        return found
    if these and explicit:
        return ReferenceResolution(False, [], "none", "the phrase refers to the tagged documents")
    if these and registry:
        latest = max(r["turn"] for r in registry)
        return ReferenceResolution(True, [r["id"] for r in registry if r["turn"] == latest],
                                   "high", "the phrase refers to the documents of the last turn")
    if found.inference_confidence != "low":
        return found
    if found.unmatched and not named_documents(found.unmatched, ready):
        return ReferenceResolution(False, [], "none", f"'{found.unmatched}' names no document "
                                   "of the library: the library is searched")
    cited = last_cited(memory, {str(d.id) for d in ready})[:limit]
    if not found.unmatched and not explicit and not registry and cited:
        return ReferenceResolution(True, cited, "high",
                                   "the phrase refers to the documents the last answer cited")
    if not found.unmatched and not explicit and not registry and ask_only \
            and references.generic_reference(message):
        # "What are the rules on gifts?" opening a conversation speaks of the rules in
        # general, not of a document the user has in front of them: the library is searched
        # and the answer names what it drew on. "These rules", "this rulebook", "it" still
        # point at something in particular, and are asked about.
        return ReferenceResolution(False, [], "none", "a document noun used generally, with "
                                   "nothing in this conversation: the library is searched")
    return found


def last_cited(memory: Mapping[str, Any] | None, ready: set[str]) -> list[str]:
    """The ready documents the thread's last answer cited, in the order it cited them."""
    answer = repeats.last_answer(memory)
    if answer is None:
        return []
    cited = [str(c.get("document_id")) for c in
             (answer.get("metadata") or {}).get("citations") or []]
    return [i for i in dict.fromkeys(cited) if i in ready]
