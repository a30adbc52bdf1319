"""What a new version of a regulation touches (issue 48): the obligations its changes add,
remove or alter (impact.py), the officer's review decisions that rested on the obligations
altered or removed (they reopen: reviewing.py reads the same impact), and the compliance
projects' requirements, risks and tasks whose cited text a substantive change rewrote.

Read on demand from what is stored: the change report of the pair, both obligation registers,
the decisions in force and the projects; nothing here writes. What a review reads of a pair
(the obligations it reopens and those it carries over) is worked out once a pair and kept in
memory (``PairImpacts``): a review reads it on every load and every decision."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from uuid import UUID

from pydantic import BaseModel, Field

from regintel.changes.impact import ObligationImpact, obligation_impact
from regintel.changes.models import ChangeReport
from regintel.domain.documents import DocStatus
from regintel.domain.ontology import Entity, EntityKind
from regintel.domain.review import Decision, document_key
from regintel.errors import InvalidRequest, NotFound
from regintel.obligations.registers import Registers
from regintel.obligations.review_state import policy_text
from regintel.ontology.store import OntologyStore
from regintel.ports.library import ChunkIndex, DocumentStore
from regintel.ports.reviews import ReviewStore

KIND_VERBS = {"altered": "changed", "removed": "removed"}
# The project work a finding becomes (ontology/findings.py): what cites a regulation's words.
WORK_KINDS = (EntityKind.REQUIREMENT, EntityKind.RISK, EntityKind.TASK)
MAX_PAIRS = 256  # pairs of versions whose settled impact a process keeps (a line an obligation)


class ChangeReports(Protocol):
    async def report(self, tenant_id: UUID, old_id: UUID, new_id: UUID) -> ChangeReport: ...


class AffectedDecision(BaseModel):
    """A decision in force on an obligation the new version altered or removed."""

    policy: str = Field(description="The policy's title as the decision files it.")
    policy_document_id: UUID | None = None
    rule: str | None = None
    decision: Decision
    decided_by: str = ""
    decided_at: datetime
    conversation_id: UUID | None = None
    message_id: UUID | None = None
    impact: ObligationImpact


class AffectedItem(BaseModel):
    """A project's requirement, risk or task whose cited regulation text a change rewrote."""

    project_id: UUID
    project: str
    entity_id: UUID
    kind: str
    title: str
    state: str = ""
    quote: str = Field(description="The regulation's words it cites, verbatim.")
    change: int
    summary: str


class ImpactReport(BaseModel):
    old_id: UUID
    new_id: UUID
    old_name: str
    new_name: str
    obligations: list[ObligationImpact]
    decisions: list[AffectedDecision]
    items: list[AffectedItem]

    @property
    def reopening(self) -> list[ObligationImpact]:
        return [i for i in self.obligations if i.reopens]


@dataclass(frozen=True)
class Settled:
    """What the review of an audit reads of a pair of versions."""

    # By the old version's obligation key: why a decision on it no longer stands (the new
    # version altered or removed it).
    reopened: Mapping[str, str]
    # By the new version's obligation key: the key it had in the old one, where the new one
    # only renumbered it or edited it for form (a decision on it stands).
    carried: Mapping[str, str]


class PairImpacts:
    """The settled impact of pairs of versions, most recently used last, at most ``size``.

    Keyed by the tenant as well as the pair, so no tenant ever reads another's entry. Nothing
    of a pair changes under its ids once both are ready: a version's text is fixed (a new text
    is a new document, a re-index re-embeds the same chunks), and its register and change
    report are made again only by a new extractor or aligner, that is by a new release, which
    starts with an empty cache. What does change - which version is current, a version slotted
    in between - changes the pair itself, so it is read anew each time."""

    def __init__(self, size: int = MAX_PAIRS) -> None:
        self._size = size
        self._settled: OrderedDict[tuple[UUID, UUID, UUID], Settled] = OrderedDict()

    def get(self, tenant_id: UUID, old_id: UUID, new_id: UUID) -> Settled | None:
        key = (tenant_id, old_id, new_id)
        found = self._settled.get(key)
        if found is not None:
            self._settled.move_to_end(key)
        return found

    def put(self, tenant_id: UUID, old_id: UUID, new_id: UUID, settled: Settled) -> None:
        self._settled[(tenant_id, old_id, new_id)] = settled
        self._settled.move_to_end((tenant_id, old_id, new_id))
        while len(self._settled) > self._size:
            self._settled.popitem(last=False)


class ImpactService:
    def __init__(self, *, documents: DocumentStore, index: ChunkIndex, changes: ChangeReports,
                 registers: Registers, reviews: ReviewStore, ontology: OntologyStore,
                 settled: PairImpacts | None = None) -> None:
        """``settled``: the pairs worked out, shared by the services of one process (the
        composition root keeps it); by default this service's own."""
        self._documents = documents
        self._index = index
        self._changes = changes
        self._registers = registers
        self._reviews = reviews
        self._ontology = ontology
        self._pairs = settled if settled is not None else PairImpacts()

    async def previous(self, tenant_id: UUID, document_id: UUID) -> UUID:
        """The version before ``document_id`` in its chain: what a report compares it with
        when the caller names no earlier version."""
        chain = await self._documents.versions(tenant_id, document_id)
        at = next(n for n, d in enumerate(chain) if d.id == document_id)
        if at == 0:
            raise InvalidRequest("this document has no earlier version to compare it with",
                                 hint="upload the new version with 'version of', or name the "
                                      "earlier version in 'from'")
        return chain[at - 1].id

    async def obligations(self, tenant_id: UUID, old_id: UUID,
                          new_id: UUID) -> tuple[ChangeReport, list[ObligationImpact]]:
        report = await self._changes.report(tenant_id, old_id, new_id)
        old_rows = await self._registers.get(tenant_id, old_id)
        new_rows = await self._registers.get(tenant_id, new_id)
        old_text = policy_text(await self._index.document_chunks(tenant_id, old_id))
        new_text = policy_text(await self._index.document_chunks(tenant_id, new_id))
        return report, obligation_impact(report, old_rows, new_rows, old_text, new_text)

    async def report(self, tenant_id: UUID, old_id: UUID, new_id: UUID) -> ImpactReport:
        """The impact of the change from ``old_id`` to ``new_id`` (both this tenant's)."""
        report, impacts = await self.obligations(tenant_id, old_id, new_id)
        old = await self._documents.get(tenant_id, old_id)
        return ImpactReport(
            old_id=old_id, new_id=new_id, old_name=report.old_name, new_name=report.new_name,
            obligations=impacts,
            decisions=await self._decisions(tenant_id, document_key(old.title), impacts),
            items=await self._items(tenant_id, old_id, report))

    async def superseded(self, tenant_id: UUID, regulation_id: UUID) -> dict[str, str]:
        """Why decisions on each obligation of ``regulation_id`` that the current version of
        its family altered or removed no longer stand (obligations.reviewing reads it)."""
        try:
            chain = await self._documents.versions(tenant_id, regulation_id)
        except NotFound:
            return {}  # deleted since the audit: its rows keep their decisions
        at = next((n for n, d in enumerate(chain) if d.id == regulation_id), None)
        current = next((n for n, d in enumerate(chain) if d.is_current), None)
        if at is None or current is None or current <= at:
            return {}
        if chain[current].status is not DocStatus.READY:
            return {}  # its register cannot be read yet; the next review will see it
        return dict((await self._settled(tenant_id, regulation_id, chain[current].id)).reopened)

    async def carried(self, tenant_id: UUID, regulation_id: UUID) -> dict[str, str]:
        """The key each obligation of ``regulation_id`` had in the version before it, where
        that version only renumbered it or edited it for form (obligations.reviewing carries
        the decisions on it over)."""
        try:
            chain = await self._documents.versions(tenant_id, regulation_id)
        except NotFound:
            return {}
        at = next((n for n, d in enumerate(chain) if d.id == regulation_id), None)
        if not at or chain[at - 1].status is not DocStatus.READY:
            return {}
        return dict((await self._settled(tenant_id, chain[at - 1].id, regulation_id)).carried)

    async def _settled(self, tenant_id: UUID, old_id: UUID, new_id: UUID) -> Settled:
        """What a review reads of the pair: worked out on its first read, then kept."""
        found = self._pairs.get(tenant_id, old_id, new_id)
        if found is not None:
            return found
        report, impacts = await self.obligations(tenant_id, old_id, new_id)
        settled = Settled(
            reopened={i.old.key: f"{report.new_name} {KIND_VERBS[i.kind]} it: {i.summary}"
                      for i in impacts if i.reopens and i.old is not None},
            carried={i.new.key: i.old.key for i in impacts
                     if i.kind in ("renumbered", "editorial") and i.old and i.new})
        self._pairs.put(tenant_id, old_id, new_id, settled)
        return settled

    async def _decisions(self, tenant_id: UUID, regulation_key: str,
                         impacts: Sequence[ObligationImpact]) -> list[AffectedDecision]:
        reopening = {i.old.key: i for i in impacts if i.reopens and i.old is not None}
        if not reopening:
            return []
        standing = [d for d in await self._reviews.on_regulation(tenant_id, regulation_key)
                    if d.obligation_key in reopening]
        titles: dict[UUID, str] = {}
        for document_id in {d.policy_document_id for d in standing if d.policy_document_id}:
            # The policy as the library names it; its key when it was deleted since.
            with suppress(NotFound):
                titles[document_id] = (await self._documents.get(tenant_id, document_id)).title
        return [AffectedDecision(
            policy=titles.get(d.policy_document_id, d.policy_key) if d.policy_document_id
            else d.policy_key, policy_document_id=d.policy_document_id, rule=d.rule,
            decision=d.decision, decided_by=d.decided_by_name, decided_at=d.decided_at,
            conversation_id=d.conversation_id, message_id=d.message_id,
            impact=reopening[d.obligation_key]) for d in standing]

    async def _items(self, tenant_id: UUID, old_id: UUID,
                     report: ChangeReport) -> list[AffectedItem]:
        rewritten = [(n, " ".join(c.old_quote.split())) for n, c in enumerate(report.changes)
                     if c.substantive and c.old_quote]
        if not rewritten:
            return []
        found: list[AffectedItem] = []
        for project in await self._ontology.projects(tenant_id):
            for kind in WORK_KINDS:
                for entity in await self._ontology.members(tenant_id, project.id, kind):
                    hit = _cited_change(entity, old_id, rewritten)
                    if hit is None:
                        continue
                    number, quote = hit
                    found.append(AffectedItem(
                        project_id=project.id, project=project.label, entity_id=entity.id,
                        kind=kind.value, title=entity.label, state=entity.state, quote=quote,
                        change=number, summary=report.changes[number].summary))
        return found


def _cited_change(entity: Entity, old_id: UUID,
                  rewritten: Sequence[tuple[int, str]]) -> tuple[int, str] | None:
    """The change that rewrote the regulation text ``entity`` cites, with that text."""
    props = entity.data.get("props") or {}
    if str(props.get("source_document_id") or "") != str(old_id):
        return None
    quote = " ".join(str(props.get("source_quote") or "").split())
    # A long quote is cut with an ellipsis: each piece is the regulation's words.
    pieces = [piece.strip() for piece in quote.split("…") if piece.strip()]
    if not pieces:
        return None
    number = next((n for n, text in rewritten if all(p in text for p in pieces)), None)
    return None if number is None else (number, quote)
