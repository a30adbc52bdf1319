"""A pair made from one real version by renumbering, moving and relettering provisions is
reported as renumbered and moved, not as deletions plus insertions."""

from __future__ import annotations

import re

from regintel.changes.models import Change
from regintel.changes.report import compare_texts


def _block(text: str, heading: str) -> tuple[int, int]:
    """Where a section starts and ends (the next section or division heading)."""
    start = text.index(f"\n{heading} ") + 1
    following = re.compile(r"^(?:§ |Subpart )", re.MULTILINE).search(text, start + 1)
    assert following is not None
    return start, following.start()


def _moved_and_renumbered(text: str) -> str:
    # § 478.29a keeps its place under a new number.
    text = text.replace("\n§ 478.29a ", "\n§ 478.29b ")
    # § 478.150 moves from Subpart I to the end of Subpart H, keeping its number; § 478.152
    # moves there too, renumbered § 478.135.
    blocks = []
    for heading in ("§ 478.150", "§ 478.152"):
        start, end = _block(text, heading)
        blocks.append(text[start:end])
        text = text[:start] + text[end:]
    moved = blocks[0] + blocks[1].replace("§ 478.152 ", "§ 478.135 ", 1)
    at = text.index("\nSubpart I—") + 1
    text = text[:at] + moved + text[at:]
    # In § 478.22 a new (b) is inserted: (b) and (c) become (c) and (d).
    start, end = _block(text, "§ 478.22")
    section = text[start:end].replace("\n(c) ", "\n(d) ").replace("\n(b) ", "\n(c) ")
    section = section.replace("\n(c) ", "\n(b) Written notice. The licensee shall notify the "
                              "Director of any variation it relies on.\n(c) ", 1)
    return text[:start] + section + text[end:]


def _find(changes: list[Change], old: str | None, new: str | None) -> Change:
    found = [c for c in changes if c.old_provision == old and c.new_provision == new]
    assert len(found) == 1, [(c.kind, c.old_provision, c.new_provision) for c in changes]
    return found[0]


def test_moved_and_renumbered_sections_are_not_deleted_and_inserted(part_478: str) -> None:
    report = compare_texts(part_478, _moved_and_renumbered(part_478))
    changes = report.changes
    assert not [c for c in changes if c.kind == "deleted"]
    assert _find(changes, "§ 478.29a", "§ 478.29b").kind == "renumbered"
    moved = _find(changes, "§ 478.150", "§ 478.150")
    assert moved.kind == "moved" and moved.divisions == ["PART 478", "Subpart H"]
    assert _find(changes, "§ 478.152", "§ 478.135").kind == "moved"
    # the renumberings and moves change no text: editorial, and no paragraph of theirs changes
    assert all(not c.substantive and c.editorial == "renumbering" for c in changes
               if c.level == "section")
    assert not [c for c in changes if c.level == "paragraph" and c.section != "§ 478.22"]
    # the relettered paragraphs are renumbered; only the new (b) is inserted
    assert _find(changes, "478.22(b)", "478.22(c)").kind == "renumbered"
    assert _find(changes, "478.22(c)", "478.22(d)").kind == "renumbered"
    inserted = _find(changes, None, "478.22(b)")
    assert inserted.kind == "inserted" and inserted.substantive
    assert inserted.new_quote == ("(b) Written notice. The licensee shall notify the Director "
                                  "of any variation it relies on.")
    assert report.counts["total"] == len(changes) == 6


def test_a_paragraph_split_in_two_is_a_split() -> None:
    old = "§ 2.1 Reports.\n\n(a) Reports. A firm must file a report each month.\n(b) Other.\n"
    new = ("§ 2.1 Reports.\n\n(a) Reports.\n(1) A firm must file a report each month.\n"
           "(b) Other.\n")
    [change] = compare_texts(old, new).changes
    assert change.kind == "split" and change.old_provision == "2.1(a)"
    assert change.new_provisions == ["2.1(a)", "2.1(a)(1)"]


def test_two_sections_merged_into_one() -> None:
    first = "The firm must keep a register of every complaint it receives from a customer."
    second = "The register must record the date, the customer and the outcome of each complaint."
    old = f"§ 3.1 Complaints.\n\n{first}\n\n§ 3.2 Register.\n\n{second}\n\n§ 3.3 Fees.\n\nNone.\n"
    new = f"§ 3.1 Complaints.\n\n{first}\n{second}\n\n§ 3.3 Fees.\n\nNone.\n"
    [change] = compare_texts(old, new).changes
    assert change.kind == "merged" and change.old_provisions == ["§ 3.1", "§ 3.2"]
    assert change.new_provision == "§ 3.1" and not change.substantive


def test_sections_swapped_under_existing_numbers_are_moved_not_amended() -> None:
    texts = {"Complaints": "The firm must keep a register of every complaint it receives.",
             "Register": "The register must record the date and outcome of each complaint.",
             "Fees": "No fee is due for a complaint, whatever its outcome."}

    def version(order: list[str]) -> str:
        return "".join(f"§ 3.{n} {name}.\n\n{texts[name]}\n\n" for n, name in
                       enumerate(order, 1))

    changes = compare_texts(version(["Complaints", "Register", "Fees"]),
                            version(["Fees", "Register", "Complaints"])).changes
    assert {(c.kind, c.old_provision, c.new_provision, c.substantive) for c in changes} == {
        ("moved", "§ 3.3", "§ 3.1", False), ("moved", "§ 3.1", "§ 3.3", False)}
