"""Readers for the guardrail data sets (``../shared/data/guardrails``, ObliQA questions), and
the one fixed held-out rule the injection trainer and ``regintel bench guardrails`` share.

Held-out rule (issue 34; replaces the seed-0 stratified 20 % split, whose rows had been read
while the phrase rules were written): a text is held out when the SHA-256 of its UTF-8 bytes,
read as a big-endian integer, is divisible by 5 (``is_heldout``). It depends on the text alone,
so duplicate texts fall on the same side and the rule needs no seed or stored index list.
Applied to ``prompt_injections_train.jsonl`` it holds out 104 of 546 prompts (37 of the 203
injections); applied to ``bipia_text_attack_train.json`` it holds out 13 of the 75 attack
strings (7 of the 25 task kinds, 6 of the 50 output-directed kinds). ObliQA questions are split
by ``obliqa_fold``: SHA-256 of the QuestionID mod 2; fold 0 (1,369 of 2,788) may be trained on,
fold 1 (1,419) is where the benign false-positive rate is measured. Neither rule was used
before this split was fixed: nothing was tuned against the held-out rows.

Unseen source (issue 50): ``bench/data/jailbreak_classification.json``, the
jackhhao/jailbreak-classification prompts (MIT; attribution inside the file): 1,291 distinct
prompts, 653 jailbreaks and 638 benign role-play instructions and general questions, from a
source no training file comes from. No row of it is trained on or tuned against; the trainer
reads it only to leave out any training row that shares at least ``OVERLAP_SHARE`` of its
word ``OVERLAP_NGRAM``-grams with it (``overlap_share``): the deepset file holds four of its
jailbreaks word for word."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from regintel.errors import InvalidRequest

HELDOUT_MODULUS = 5
OBLIQA_FOLDS = 2
OBLIQA_MEASURE_FOLD = 1
# BIPIA kinds that are ordinary requests when read on their own ("What is the capital of
# Brazil?"): injections only when planted in a document, so they are never trained on as
# user-message injections and their recall is reported apart from the output-directed kinds.
BIPIA_TASK_KINDS = frozenset({"Information Retrieval", "Content Creation",
                              "Learning and Tutoring", "Language Translation",
                              "Programming Help"})
UNSEEN_FILE = "jailbreak_classification.json"
OVERLAP_NGRAM = 8
OVERLAP_SHARE = 0.2
_WORD = re.compile(r"\w+")


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest(), "big")


def is_heldout(text: str) -> bool:
    """The fixed held-out rule: never trained or tuned on (see the module docstring)."""
    return _digest(text) % HELDOUT_MODULUS == 0


def obliqa_fold(question_id: str) -> int:
    """0: may be trained on as benign; 1 (``OBLIQA_MEASURE_FOLD``): measures the FPR."""
    return _digest(question_id) % OBLIQA_FOLDS


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InvalidRequest(f"{path}:{n} is not JSON: {exc.msg}") from exc
    return rows


def read_labelled(path: Path) -> tuple[list[str], list[int]]:
    """A JSONL of ``{"text", "label"}`` (1 = injection), or a JSON file of such rows under
    ``"rows"`` (the shape of the unseen-source file)."""
    rows = _labelled_rows(path)
    try:
        return [str(r["text"]) for r in rows], [int(r["label"]) for r in rows]
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidRequest(f"{path}: every line needs a text and a 0/1 label") from exc


def _labelled_rows(path: Path) -> list[dict[str, Any]]:
    """JSON lines, or one JSON object whose ``rows`` are the lines."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return _jsonl(path)
    if isinstance(document, dict) and isinstance(document.get("rows"), list):
        return list(document["rows"])
    return _jsonl(path)


def read_unseen(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The unseen-source file: its description (name, licence, …) and its rows, each
    ``{"text", "label", "split"}``."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        rows = document["rows"]
        meta = {k: v for k, v in document.items() if k != "rows"}
        for row in rows:
            row["text"], row["label"] = str(row["text"]), int(row["label"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise InvalidRequest(f"{path}: expected an object with name and rows of "
                             "{text, label, split}") from exc
    return meta, list(rows)


def shipped_unseen() -> Path:
    """The unseen source that ships with the bench (``bench/data``)."""
    return Path(str(resources.files("regintel.bench").joinpath("data", UNSEEN_FILE)))


def shingles(text: str, n: int = OVERLAP_NGRAM) -> set[tuple[str, ...]]:
    """The text's word n-grams (lower-cased; a shorter text is one n-gram of all its words)."""
    words = _WORD.findall(text.lower())
    return {tuple(words[i:i + n]) for i in range(max(1, len(words) - n + 1))} if words else set()


def overlap_share(text: str, others: set[tuple[str, ...]]) -> float:
    """The share of ``text``'s word n-grams found in ``others`` (the union of another set's)."""
    own = shingles(text)
    return len(own & others) / len(own) if own else 0.0


def shingle_union(texts: Iterable[str]) -> set[tuple[str, ...]]:
    out: set[tuple[str, ...]] = set()
    for text in texts:
        out |= shingles(text)
    return out


def read_benign(path: Path) -> list[str]:
    """Benign questions: an ObliQA file (a JSON list of objects with ``Question``) or a JSONL
    of ``{"text"}``."""
    raw = path.read_text(encoding="utf-8")
    if raw.lstrip().startswith("["):
        items = json.loads(raw)
        try:
            return [str(item["Question"]) for item in items]
        except (KeyError, TypeError) as exc:
            raise InvalidRequest(f"{path}: expected objects with a Question field") from exc
    try:
        return [str(r["text"]) for r in _jsonl(path)]
    except KeyError as exc:
        raise InvalidRequest(f"{path}: every line needs a text field") from exc


def read_obliqa(path: Path) -> list[tuple[str, str]]:
    """``(QuestionID, Question)`` of each ObliQA question; empty for a file of another shape
    (a JSONL of ``{"text"}`` has no IDs, so no fold)."""
    raw = path.read_text(encoding="utf-8")
    if not raw.lstrip().startswith("["):
        return []
    items = json.loads(raw)
    try:
        return [(str(item["QuestionID"]), str(item["Question"])) for item in items]
    except (KeyError, TypeError) as exc:
        raise InvalidRequest(f"{path}: expected objects with QuestionID and Question") from exc


def read_attacks(path: Path) -> list[tuple[str, str]]:
    """``(kind, attack)`` pairs of a BIPIA file: ``{kind: [attack, …]}``, in file order."""
    kinds = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(kinds, dict) or not all(isinstance(v, list) for v in kinds.values()):
        raise InvalidRequest(f"{path}: expected an object of attack-kind lists")
    return [(str(kind), str(attack)) for kind, attacks in kinds.items() for attack in attacks]


def read_pii(path: Path) -> list[dict[str, Any]]:
    """Presidio-research style: ``{"full_text", "spans": [{"entity_type",
    "start_position", "end_position", …}]}``."""
    items = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(items, list) or not all("full_text" in i and "spans" in i for i in items):
        raise InvalidRequest(f"{path}: expected a list of {{full_text, spans}} objects")
    return list(items)
