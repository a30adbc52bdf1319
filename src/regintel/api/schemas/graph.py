"""The concept graph as the graph view reads it: nodes, edges, a node with its neighbours, and
the change patches."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from regintel.domain.concepts import GraphPatch


class GraphNodePublic(BaseModel):
    id: str = Field(description="The graph key, e.g. `concept:DATA_PROTECTION:PERSONAL_DATA:EU`.")
    labels: list[str]
    kind: Literal["concept", "section", "rule", "other"]
    label: str = Field(description="What to show: the prefLabel, or a section's clause and "
                       "title.")
    prefLabel: str | None = None
    altLabels: list[str] = Field(default_factory=list)
    definition: str | None = None
    domain: str | None = None
    jurisdiction: str | None = None
    sourceUrls: list[str] = Field(default_factory=list)
    document: str | None = None
    clause: str | None = None
    title: str | None = None
    url: str | None = None
    created_at: int | None = Field(None, description="Epoch milliseconds.")
    updated_at: int | None = Field(None, description="Epoch milliseconds.")


class GraphEdgePublic(BaseModel):
    id: str = Field(description="`source-[REL]->target`.")
    source: str
    target: str
    rel: str


class GraphPublic(BaseModel):
    nodes: list[GraphNodePublic]
    edges: list[GraphEdgePublic]
    count: int = Field(description="Nodes returned.")
    total: int = Field(description="Nodes that matched before the limit.")
    truncated: bool
    focus: str | None = None
    depth: dict[str, int] = Field(default_factory=dict, description="With `focus`: each "
                                  "node's hop distance from it (for a concentric layout).")
    cursor: int = Field(description="Epoch milliseconds taken before reading: pass it as "
                        "`since` to /api/graph/stream to miss no change made after this read.")


class NeighbourPublic(BaseModel):
    edge: GraphEdgePublic
    direction: Literal["out", "in"]
    node: GraphNodePublic


class GraphNodeDetail(BaseModel):
    node: GraphNodePublic
    neighbours: list[NeighbourPublic]
    count: int


class GraphPatchesPublic(BaseModel):
    data: list[GraphPatch]
    count: int
    cursor: int = Field(description="Pass as `since` next time.")
