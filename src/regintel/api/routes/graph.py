"""The concept graph for the graph view: bounded reads (an overview, a label search, the
neighbourhood of a focused node), one node with its neighbours, and the change patches — as a
Server-Sent Events stream for live views, or as a JSON page for polling clients.

Each signed-in user reads their organisation's view of the graph (``concepts.tenant_graph``):
the shared graph of public regulatory knowledge, plus what their own organisation's chats
captured; never another organisation's."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Path, Query, Request

from regintel.api.deps import ContainerDep, PrincipalDep
from regintel.api.errors import problem, problem_body, status_for
from regintel.api.schemas.graph import (
    GraphEdgePublic,
    GraphNodeDetail,
    GraphNodePublic,
    GraphPatchesPublic,
    GraphPublic,
    NeighbourPublic,
)
from regintel.api.sse import EventStreamResponse
from regintel.concepts.changes import GraphChangeDetector
from regintel.domain.concepts import CONCEPT, RULE, SECTION, GraphPatch, edge_id
from regintel.errors import NotFound, RegintelError, ResyncRequired
from regintel.ports.graph import GraphEdge, GraphNode, GraphStore, now_ms

log = logging.getLogger(__name__)
router = APIRouter(prefix="/api", tags=["graph"])
_PROBLEMS: dict[int | str, dict[str, object]] = {
    401: {"description": "Not signed in"},
    503: {"description": "The graph store cannot be reached"},
}
DEFAULT_LIMIT = 300
MAX_LIMIT = 1000
MAX_SCAN = 5000  # nodes read per label for the overview and the search
MAX_NEIGHBOURS = 300
HEARTBEAT_S = 15.0  # a comment line this often keeps proxies and the browser from timing out
STREAM_LIFETIME_S = 30 * 60.0  # then the stream ends; EventSource reconnects (Last-Event-ID)
RETRY_MS = 3000
_QUEUE_SIZE = 256
_FOLD = re.compile(r"[^\w]+")
# No control characters: no key has them, and the graph server's parameter header cannot carry
# a NUL (the query would fail as a server error instead of finding nothing).
KEY_PATTERN = r"^[^\x00-\x1f\x7f]+$"
NodeId = Annotated[str, Path(min_length=1, max_length=300, pattern=KEY_PATTERN,
                             description="A graph key, e.g. "
                             "`concept:DATA_PROTECTION:PERSONAL_DATA:EU`.")]


def _fold(text: str) -> str:
    return " ".join(_FOLD.sub(" ", text.lower()).split())


def _str(value: object) -> str | None:
    return None if value is None or value == "" else str(value)


def _strs(value: object) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(v) for v in value if v not in (None, "")]
    return [str(value)] if value not in (None, "") else []


def _int(value: object) -> int | None:
    try:
        return int(str(value)) if value is not None else None
    except ValueError:
        return None


def _kind(labels: Sequence[str]) -> Literal["concept", "section", "rule", "other"]:
    if CONCEPT in labels:
        return "concept"
    if SECTION in labels:
        return "section"
    if RULE in labels:
        return "rule"
    return "other"


def node_public(node: GraphNode) -> GraphNodePublic:
    p = node.properties
    pref, clause, title = _str(p.get("prefLabel")), _str(p.get("clause")), _str(p.get("title"))
    shown = pref or " — ".join(x for x in (clause, title) if x) or node.key
    return GraphNodePublic(
        id=node.key, labels=list(node.labels), kind=_kind(node.labels), label=shown,
        prefLabel=pref, altLabels=_strs(p.get("altLabels")), definition=_str(p.get("definition")),
        domain=_str(p.get("domain")), jurisdiction=_str(p.get("jurisdiction")),
        sourceUrls=_strs(p.get("sourceUrls")), document=_str(p.get("document")), clause=clause,
        title=title, url=_str(p.get("url")), created_at=_int(p.get("created_at")),
        updated_at=_int(p.get("updated_at")))


def edge_public(edge: GraphEdge) -> GraphEdgePublic:
    return GraphEdgePublic(id=edge_id(edge.src_key, edge.rel, edge.dst_key),
                           source=edge.src_key, target=edge.dst_key, rel=edge.rel)


def _names(node: GraphNode) -> list[str]:
    p = node.properties
    return [_fold(x) for x in (*_strs(p.get("prefLabel")), *_strs(p.get("altLabels")),
                               *_strs(p.get("title")), *_strs(p.get("clause")))]


def _search(nodes: Iterable[GraphNode], q: str) -> list[GraphNode]:
    """Nodes any of whose labels contains ``q`` (case and punctuation folded); exact matches
    first, then labels that start with it, then the rest, each by label."""
    needle = _fold(q)
    scored: list[tuple[int, str, GraphNode]] = []
    for node in nodes:
        names = _names(node)
        if not any(needle in n for n in names):
            continue
        rank = 0 if needle in names else 1 if any(n.startswith(needle) for n in names) else 2
        scored.append((rank, node_public(node).label.lower(), node))
    scored.sort(key=lambda x: (x[0], x[1]))
    return [n for _, _, n in scored]


async def _edges_among(store: GraphStore, keys: Sequence[str]) -> list[GraphEdge]:
    """The edges whose two ends are both in ``keys``."""
    if not keys:
        return []
    # The edges alone: asking each node's neighbours brought every section's text along (the
    # demo's 186-concept overview read 1,299 neighbours, 0.6 MB, to keep 344 edges).
    found: dict[str, GraphEdge] = {}
    for edge in await store.edges_among(list(keys), limit=max(2000, 20 * len(keys))):
        found.setdefault(edge_id(edge.src_key, edge.rel, edge.dst_key), edge)
    return list(found.values())


def _depths(focus: str, edges: Sequence[GraphEdge]) -> dict[str, int]:
    adjacent: dict[str, set[str]] = {}
    for e in edges:
        adjacent.setdefault(e.src_key, set()).add(e.dst_key)
        adjacent.setdefault(e.dst_key, set()).add(e.src_key)
    depth, queue = {focus: 0}, deque([focus])
    while queue:
        key = queue.popleft()
        for other in adjacent.get(key, ()):
            if other not in depth:
                depth[other] = depth[key] + 1
                queue.append(other)
    return depth


@router.get("/graph", response_model=GraphPublic, operation_id="read_graph",
            responses={**_PROBLEMS, 404: {"description": "The focus node does not exist"}})
async def read_graph(
    principal: PrincipalDep, container: ContainerDep,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="Most nodes returned.")
                     ] = DEFAULT_LIMIT,
    q: Annotated[str, Query(max_length=200, description="Only nodes whose preferred or "
                            "alternative label (or a section's title) contains this.")] = "",
    focus: Annotated[str | None, Query(min_length=1, max_length=300, pattern=KEY_PATTERN,
                                       description="A node id: "
                                       "its neighbourhood, breadth first.")] = None,
    depth: Annotated[int, Query(ge=1, le=3, description="With `focus`: hops.")] = 2,
    sections: Annotated[bool, Query(description="Include `:Section` nodes in the overview "
                                    "and the search (a focused neighbourhood always has "
                                    "them).")] = False,
) -> GraphPublic:
    """Concept nodes and the edges between them, bounded by `limit`: the overview (concepts
    by label), a search (`q`), or the neighbourhood of `focus` (with each node's depth)."""
    cursor = now_ms()
    services = await container.concepts(principal.tenant_id)
    if focus is not None:
        if not await services.client.get_nodes_by_ids([focus]):
            raise NotFound(f"no graph node {focus}")
        nodes, edges = await services.client.bfs([focus], depth=depth, max_nodes=limit,
                                                 max_edges=limit * 3)
        depths = _depths(focus, edges)
        return GraphPublic(nodes=[node_public(n) for n in nodes],
                           edges=[edge_public(e) for e in edges], count=len(nodes),
                           total=len(nodes), truncated=len(nodes) >= limit, focus=focus,
                           depth={n.key: depths.get(n.key, depth) for n in nodes},
                           cursor=cursor)
    found = await services.client.concepts(limit=MAX_SCAN)
    if sections:
        found += await services.client.store.find_nodes(SECTION, {}, limit=MAX_SCAN)
    if q.strip():
        matched = _search(found, q)
    else:
        matched = sorted(found, key=lambda n: node_public(n).label.lower())
    kept = matched[:limit]
    edges = await _edges_among(services.client.store, [n.key for n in kept])
    return GraphPublic(nodes=[node_public(n) for n in kept],
                       edges=[edge_public(e) for e in edges], count=len(kept),
                       total=len(matched), truncated=len(matched) > len(kept), cursor=cursor)


@router.get("/graph/nodes/{node_id}", response_model=GraphNodeDetail,
            operation_id="read_graph_node",
            responses={**_PROBLEMS, 404: {"description": "No such node"}})
async def read_graph_node(node_id: NodeId, principal: PrincipalDep,
                          container: ContainerDep) -> GraphNodeDetail:
    """One node (a concept's prefLabel, altLabels, definition, sources…) with its
    neighbours: each edge, its direction seen from the node, and the node at its other end."""
    services = await container.concepts(principal.tenant_id)
    found = await services.client.get_nodes_by_ids([node_id])
    if not found:
        raise NotFound(f"no graph node {node_id}")
    around = await services.client.neighbours(node_id)
    around.sort(key=lambda en: (en[0].rel, node_public(en[1]).label.lower()))
    neighbours = [NeighbourPublic(edge=edge_public(e), node=node_public(n),
                                  direction="out" if e.src_key == node_id else "in")
                  for e, n in around[:MAX_NEIGHBOURS]]
    return GraphNodeDetail(node=node_public(found[0]), neighbours=neighbours,
                           count=len(around))


Since = Annotated[int | None, Query(ge=0, le=10**15, description="Epoch milliseconds: "
                                    "changes at or after it (the `cursor` of GET /api/graph). "
                                    "Default: now.")]


@router.get("/graph/changes", response_model=GraphPatchesPublic,
            operation_id="list_graph_changes", responses={**_PROBLEMS, 410: {
                "description": "`since` is older than the removals still kept: reload GET "
                "/api/graph and poll from its cursor"}})
async def list_graph_changes(principal: PrincipalDep, container: ContainerDep,
                             since: Since = None) -> GraphPatchesPublic:
    """The patches since `since`, oldest first (for clients that poll rather than stream).
    Patches at exactly the returned `cursor` millisecond may come again next time: applying
    a patch twice changes nothing."""
    start = now_ms() if since is None else since
    services = await container.concepts(principal.tenant_id)
    patches = await services.changes.patches_since(start)
    cursor = max((p.at for p in patches), default=start)
    return GraphPatchesPublic(data=patches, count=len(patches), cursor=cursor)


def _event(kind: str, data: Any, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


class PatchStream:
    """The change detector's patches, read by a task of its own into a small queue so the
    response can send heartbeats while the detector waits between polls; the task ends with
    the response (the client leaving cancels it)."""

    TASK_NAME = "regintel-graph-stream"

    def __init__(self, changes: GraphChangeDetector, since_ms: int) -> None:
        self.since_ms = since_ms
        self._changes = changes
        self._queue: asyncio.Queue[GraphPatch | BaseException | None] = asyncio.Queue(
            _QUEUE_SIZE)
        self._task: asyncio.Task[None] | None = None

    async def _produce(self) -> None:
        try:
            async for patch in self._changes.stream(self.since_ms):
                await self._queue.put(patch)
            await self._queue.put(None)
        except Exception as exc:  # reported to the client as the stream's last event
            await self._queue.put(exc)

    async def body(self) -> AsyncIterator[bytes]:
        # Started with the body, so a response that never starts leaves no task behind.
        self._task = asyncio.create_task(self._produce(), name=self.TASK_NAME)
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            yield _event("ready", {"since": self.since_ms})
            deadline = time.monotonic() + STREAM_LIFETIME_S
            while (left := deadline - time.monotonic()) > 0:
                try:
                    item = await asyncio.wait_for(self._queue.get(), min(HEARTBEAT_S, left))
                except TimeoutError:
                    yield b": ping\n\n"
                    continue
                if item is None:
                    return
                if isinstance(item, ResyncRequired):  # the client reloads, then follows anew
                    yield _event("resync", problem_body(410, item.code, item.message,
                                                        item.hint))
                    return
                if isinstance(item, BaseException):
                    if not isinstance(item, RegintelError):
                        log.error("graph change stream failed", exc_info=item)
                    exc = item if isinstance(item, RegintelError) else None
                    yield _event("error", problem_body(
                        status_for(exc) if exc else 500, exc.code if exc else "internal_error",
                        exc.message if exc else "the change stream failed",
                        exc.hint if exc else "reconnect"))
                    return
                yield _event("patch", item.model_dump(mode="json"), item.at)
        finally:
            self.cancel()

    def cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()


@router.get(
    "/graph/stream", operation_id="stream_graph_changes", response_class=EventStreamResponse,
    responses={**_PROBLEMS, 200: {
        "description": "Server-Sent Events: `ready` {since}, then `patch` (a GraphPatch; the "
        "event id is its epoch-ms time) as changes happen; comment heartbeats; `error` (a "
        "problem body) if the graph fails; `resync` (a problem body) when `since` is older "
        "than the removals still kept: reload GET /api/graph and stream from its cursor. The "
        "stream ends after a while and EventSource reconnects with Last-Event-ID.",
        "content": {"text/event-stream": {"schema": {"type": "string"}}}},
        406: {"description": "The request does not accept text/event-stream (use "
              "/api/graph/changes to poll)"}})
async def stream_graph_changes(
    request: Request, principal: PrincipalDep, container: ContainerDep, since: Since = None,
    last_event_id: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> Any:
    """Live graph changes (nodes and edges added, updated, removed) for the graph view. Send
    `Accept: text/event-stream` (EventSource does); on reconnection `Last-Event-ID` resumes
    where the stream stopped."""
    accept = request.headers.get("accept", "")
    if "text/event-stream" not in accept.lower():
        return problem(406, "not_acceptable", "this is a Server-Sent Events stream",
                       "send Accept: text/event-stream, or poll GET /api/graph/changes")
    start = now_ms() if since is None else since
    resumed = _int(last_event_id.strip()) if last_event_id else None
    if resumed is not None and 0 <= resumed <= 10**15:
        # A reconnection: carry on from the last patch seen (inclusive; repeats are harmless).
        start = max(since or 0, resumed)
    services = await container.concepts(principal.tenant_id)
    stream = PatchStream(services.changes, start)
    return EventStreamResponse(stream.body(), headers={"Cache-Control": "no-cache",
                                                       "X-Accel-Buffering": "no"})
