"""The bench reads eRegs' record labels onto our provisions."""

from __future__ import annotations

from regintel.bench.changes import score_pair, section_id, term_hashes
from regintel.changes.provisions import read_version

OLD = """§ 9.11 Meaning of terms.

Nonimmigrant visa. A visa properly issued.
Person. Any individual.

§ 9.12 Records.

(a) Records must be kept.
(1) For  five years.
(b) Reports are filed.
"""
NEW = OLD.replace("For  five years.", "For five years.").replace("Any individual.",
                                                                 "Any individual or firm.")


def test_labels() -> None:
    assert 242755046 in term_hashes("Nonimmigrant visa. A visa properly issued.")
    assert 657734979 in term_hashes("category vii—tanks and military vehicles")
    section = read_version(OLD).sections[1]
    assert section_id("9", section) == "9-12"


def test_a_record_scored() -> None:
    record = {"part": "9", "from": "a", "to": "b", "sections_changed": ["9-11", "9-12"],
              "changed": {f"9-11-p{min(term_hashes('Person'))}": "modified",
                          "9-12-a-1": "modified"}}
    score, report = score_pair(record, OLD, NEW)
    assert (score.sections_tp, score.sections_fp, score.sections_fn) == (2, 0, 0)
    assert (score.labels, score.labels_found, score.missed) == (2, 2, [])
    assert (score.editorial_record, score.editorial_found) == (1, 1)
    assert report.counts["total"] == 2
