"""Which provisions of two documents a focused comparison sets side by side: a pair must share
its topic, not only the comparison's. Two rules that both keep records for six years say
alike sentences ("These records must be kept for at least six years from the date …") about
different records - a firm's training, an approved person's assessment - and the sentence
alone cannot tell them apart. Where a provision stands mostly can: its place in the
document, the headings above it ("Staff training and awareness › Record-keeping" against
"Application for Approved Person status"), and the sentence a "These records …" points back
to. A provision is read as its sentence and its place together, and a pair is kept only when
the two readings are at least ``SAME_TOPIC`` close; a provision with no such counterpart is
shown as one document's alone rather than forced into a pair."""

from __future__ import annotations

import re
from collections.abc import Sequence
from uuid import UUID

import numpy as np

from regintel.chat.offline.ranking import Kept, Matrix, Sentence, embed
from regintel.ports.embedder import Embedder

# The floor, measured on 43 development pairs from nine focused comparisons of the demo
# regulations (tests/data/comparison_pairs.json; tests/unit/chat/test_comparison_pairing.py),
# each judged, before any score, by whether a compliance officer would set the two side by side:
#   accepted (14) - one duty or point in both: disclosing conflicts when arrangements are not
#   enough (GEN 3.3.23, 3.3.24 / COBS 3.5.4), reasonable steps to identify and manage
#   conflicts (GEN 2.2.7 / COBS 3.5.1), complaint procedures and their timeliness (GEN 7.2.2,
#   7.2.3, 7.3.2 / COBS 19.22.1), outsourcing (GEN 3.3.31, 3.3.32 / COBS 19.9.1), the
#   reporting officer's responsibilities (12.3.1 / GEN 5.3.8): 0.649-0.861 in their place;
#   rejected (29) - alike words, another subject: training records against a representative
#   office's, an approved person's assessment or a client account's records (13.3.2 /
#   GEN 9.13.1, 5.6.16, COBS 15.12.2), a sanctions report against a skilled person's report,
#   screening employees against the reporting officer's function: 0.378-0.679, 5 of them at
#   0.645 or more (4.5.1 and 4.5.4 records against GEN 5.6.16's and COBS 2.7.2's, 15.12.2's:
#   record-keeping rules whose subject neither sentence nor heading names).
# The sentences alone tell them apart worse: accepted 0.546-0.946, rejected 0.421-0.795 (the
# training and the assessment records' sentences, 0.795, are nearly the same words); at the
# 0.5 pairs were held to before, 17 of the 29 rejected pairs were kept, and 11 at the lowest
# floor that keeps every accepted pair. The place weighs half: at the floor that keeps every
# accepted pair, weights 0.3-0.6 keep 4-6 rejected pairs, the whole place (1.0) 11.
SAME_TOPIC = 0.645
PLACE_WEIGHT = 0.5
# A sentence that opens by pointing back names its subject in the sentence before.
_POINTING = re.compile(r"^(?:these|those|such|this|that|they|it)\b", re.I)
_NUMBER = re.compile(
    r"^\s*(?:(?:article|section|rule|part|chapter|principle|regulation|schedule|appendix|annex)"
    r"\s+)?(?=[\w.()]*\d)[\w.()]+\s*[:.\-–]?\s+", re.I)


def place_of(sentence: Sentence) -> str | None:
    """Where the provision stands, in words: its section path without numbers
    ("STAFF TRAINING AND AWARENESS › Record-keeping")."""
    path = sentence.hit.section_at(sentence.position)
    if not path:
        return None
    names = [_NUMBER.sub("", part.strip()).strip() for part in path.split("›")]
    return " › ".join(n for n in names if n) or None


async def place_vectors(embedder: Embedder, sentences: Sequence[Sentence],
                        kept: Kept | None = None) -> dict[int, Matrix]:
    """Each provision's place as a unit vector (by ``id``), where it has one. Places repeat
    (a section's provisions share one) and are kept between turns with the sentences'
    vectors, so a comparison embeds only the few it has not read before."""
    places = {id(s): (s.hit.document_id, p) for s in sentences if (p := place_of(s))}
    keys = list(dict.fromkeys(places.values()))
    if not keys:
        return {}
    if kept is None:
        vectors = await embed(embedder, [text for _, text in keys])
    else:
        found = np.asarray(await kept.memo.embed(embedder, kept.tenant_id, keys),
                           dtype=np.float32)
        vectors = found / np.maximum(np.linalg.norm(found, axis=1, keepdims=True), 1e-9)
    at = {key: i for i, key in enumerate(keys)}
    return {sid: vectors[at[key]] for sid, key in places.items()}


def antecedents(sentences: Sequence[Sentence], chosen: Sequence[Sentence],
                ) -> dict[int, Sentence]:
    """The sentence each chosen one points back to ("These records must be kept …" after "A
    firm must maintain records of the training …"): the one before it in its
    chunk, among ``sentences``, when it opens with a word that points back."""
    by_chunk: dict[UUID, list[Sentence]] = {}
    for s in sentences:
        by_chunk.setdefault(s.hit.chunk_id, []).append(s)
    out: dict[int, Sentence] = {}
    for s in chosen:
        if _POINTING.match(s.clean):
            before = [x for x in by_chunk.get(s.hit.chunk_id, []) if x.position < s.position]
            if before:
                out[id(s)] = max(before, key=lambda x: x.position)
    return out


def readings(sentences: Sequence[Sentence], vector_of: dict[int, Matrix],
             place_vector: dict[int, Matrix], antecedent: dict[int, Sentence] | None = None,
             ) -> dict[int, Matrix]:
    """Each provision's ``reading`` by ``id``."""
    antecedent = antecedent or {}
    return {id(s): reading(vector_of[id(s)],
                           vector_of[id(a)] if (a := antecedent.get(id(s))) else None,
                           place_vector.get(id(s))) for s in sentences}


def reading(said: Matrix, before: Matrix | None, place: Matrix | None) -> Matrix:
    """A provision read in its place: its sentence (with the one it points back to) plus
    PLACE_WEIGHT of its place, to unit length; the sentence alone where the place is unknown."""
    if before is not None:
        said = _unit(said + before)
    return _unit(said + PLACE_WEIGHT * place) if place is not None else said


def _unit(v: Matrix) -> Matrix:
    return (v / max(float(np.linalg.norm(v)), 1e-9)).astype(np.float32)


def pair(first: Sequence[Sentence], other: Sequence[Sentence],
         read: dict[int, Matrix]) -> dict[int, Sentence]:
    """The other document's counterpart of each of ``first``'s provisions that has one (by
    ``id``): the closest pairs first, each provision in one pair at most, none below
    ``SAME_TOPIC``."""
    scored = sorted(((float(read[id(a)] @ read[id(b)]), i, j)
                     for i, a in enumerate(first) for j, b in enumerate(other)), reverse=True)
    matched: dict[int, Sentence] = {}
    taken: set[int] = set()
    for closeness, i, j in scored:
        if closeness < SAME_TOPIC:
            break
        if id(first[i]) in matched or j in taken:
            continue
        matched[id(first[i])] = other[j]
        taken.add(j)
    return matched
