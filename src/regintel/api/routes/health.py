"""Liveness and readiness of the stores the service depends on."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from regintel import __version__
from regintel.api.deps import ContainerDep

router = APIRouter(tags=["health"])


class HealthPublic(BaseModel):
    status: Literal["ok", "degraded"]
    version: str
    db: Literal["ok", "down"]
    graph: Literal["ok", "down"]
    queue: Literal["ok", "down"]
    llm: Literal["ok", "idle", "down", "off"] = "off"


@router.get("/healthz", response_model=HealthPublic, operation_id="healthz",
            responses={503: {"model": HealthPublic, "description": "a store is down"}})
async def healthz(container: ContainerDep) -> JSONResponse:
    checks = await container.health()
    healthy = all(v == "ok" for v in checks.values())
    # The local model server does not make the service unhealthy: chat falls back without it.
    body = HealthPublic(status="ok" if healthy else "degraded", version=__version__,
                        llm=container.llm_status(), **checks)
    return JSONResponse(body.model_dump(), status_code=200 if healthy else 503)
