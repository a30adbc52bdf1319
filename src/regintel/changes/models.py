"""The change report as data: what the CLI prints, the JSON it emits, and what later steps
(impact on obligations, the API, chat) read."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from regintel.changes.redline import Editorial, RedlineOp
from regintel.changes.summary import FactChange

ChangeKind = Literal["inserted", "deleted", "amended", "renumbered", "moved", "split", "merged"]
ChangeLevel = Literal["division", "section", "paragraph"]
CHANGE_KINDS: tuple[ChangeKind, ...] = ("inserted", "deleted", "amended", "renumbered", "moved",
                                        "split", "merged")


class Change(BaseModel):
    """One change between two versions of a provision."""

    kind: ChangeKind
    level: ChangeLevel
    substantive: bool
    editorial: Editorial | Literal["renumbering"] | None = Field(
        None, description="Why an editorial change is editorial; None when substantive.")
    old_provision: str | None = Field(
        None, description="As the old version cites it ('§ 478.11', '478.124(c)(1)'); "
        "pieces of a merge joined by ' + '; None where absent.")
    new_provision: str | None = None
    old_provisions: list[str] = Field(default_factory=list)
    new_provisions: list[str] = Field(default_factory=list)
    section: str = Field(description="The section it is in, as the new version numbers it "
                         "(the old where it was deleted).")
    divisions: list[str] = Field(default_factory=list,
                                 description="Its part, subpart…, outermost first.")
    summary: str
    facts_changed: list[FactChange] = Field(default_factory=list)
    old_quote: str | None = Field(None, description="Verbatim from the old version.")
    new_quote: str | None = Field(None, description="Verbatim from the new version.")
    redline: str | None = Field(None, description="[-deleted-]{+inserted+}, word by word.")
    redline_ops: list[RedlineOp] = Field(default_factory=list)


class TocEntry(BaseModel):
    """A division or section of the table of contents with the changes under it."""

    label: str
    heading: str
    level: Literal["division", "section"]
    depth: int
    changes: int
    substantive: int
    editorial: int
    kinds: dict[str, int]


class ChangeReport(BaseModel):
    old_name: str
    new_name: str
    changes: list[Change]
    toc: list[TocEntry] = Field(description="Divisions and sections with changes, in the new "
                                "version's order (deleted ones where they stood).")
    counts: dict[str, int]
    seconds: float
