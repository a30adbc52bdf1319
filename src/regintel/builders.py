"""The adapters the composition root (container.py) builds from settings: the embedder, the
graph store, the chat models behind their routes, and which engines a conversation may choose.
Only the container calls these."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import os
from pathlib import Path

import httpx

from regintel.adapters.embeddings.local import LocalEmbedder
from regintel.adapters.embeddings.openai_compatible import OpenAICompatibleEmbedder
from regintel.adapters.graph.falkordb_store import FalkorGraphStore
from regintel.adapters.llm import machine_speed
from regintel.adapters.llm.local_model import LocalServerChatModel
from regintel.adapters.llm.machine_speed import Estimate, Speed
from regintel.adapters.llm.openai_compatible import OpenAICompatibleChatModel
from regintel.chat.llm.egress import FindPii, RedactingChatModel
from regintel.chat.llm.routing import DEFAULT_ALIASES, LlmRouter, Price, Route, RouteName
from regintel.domain.chat import EngineChoice, OfferedEngine
from regintel.errors import ConfigurationError, DependencyUnavailable
from regintel.ports.embedder import Embedder
from regintel.ports.graph import GraphStore
from regintel.ports.llm import ChatModel
from regintel.runtime.llama_server import EmbeddedModelServer, LocalModelLease
from regintel.runtime.models import ModelStore
from regintel.settings import EmbeddingProvider, LlmProvider, LlmSettings, Settings

log = logging.getLogger(__name__)


def build_embedder(settings: Settings) -> Embedder:
    e = settings.embedding
    if e.provider is EmbeddingProvider.OPENAI:
        if not e.base_url:
            raise ConfigurationError("REGINTEL_EMBEDDING__BASE_URL is required for provider "
                                     "'openai'")
        return OpenAICompatibleEmbedder(
            base_url=e.base_url, model=e.model, dimension=e.dimension,
            api_key=e.api_key.get_secret_value() if e.api_key else None,
            batch_size=e.batch_size)
    embedder = LocalEmbedder(e.model, batch_size=e.batch_size)
    if embedder.dimension != e.dimension:
        raise ConfigurationError(f"{e.model} has {embedder.dimension} dimensions, settings say "
                                 f"{e.dimension}", hint="fix REGINTEL_EMBEDDING__DIMENSION")
    return embedder


def build_graph(settings: Settings, socket: object | None) -> GraphStore:
    url = settings.graph_url
    if url is None:
        if socket is None:
            raise DependencyUnavailable("the embedded graph store did not start")
        return FalkorGraphStore(graph_name=settings.graph.name, unix_socket_path=str(socket))
    scheme = url.split("://", 1)[0].lower()
    if scheme in {"bolt", "neo4j"}:
        from regintel.adapters.graph.bolt_store import bolt_store_from_url

        return bolt_store_from_url(url)
    return FalkorGraphStore(graph_name=settings.graph.name, url=url)


def build_llm(llm: LlmSettings, find_pii: FindPii) -> tuple[LlmRouter, list[httpx.AsyncClient]]:
    """One adapter per model alias, sharing one connection pool per provider (returned, for
    the container to close); an external provider's adapters redact personal data before
    anything is sent."""
    providers = dict(llm.providers)
    if llm.base_url is not None:
        providers.setdefault("default", LlmProvider(
            base_url=llm.base_url, api_key=llm.api_key, external=llm.external,
            timeout_s=llm.timeout_s))
    clients: dict[str, httpx.AsyncClient] = {}
    routes: dict[str, Route] = {}
    for alias, spec in llm.models.items():
        provider = providers.get(spec.provider)
        if provider is None:
            raise ConfigurationError(
                f"model alias {alias!r} names provider {spec.provider!r}, which is not "
                "configured", hint="set REGINTEL_LLM__BASE_URL or REGINTEL_LLM__PROVIDERS")
        if spec.provider not in clients:
            clients[spec.provider] = httpx.AsyncClient(
                timeout=httpx.Timeout(provider.timeout_s))
        model: ChatModel = OpenAICompatibleChatModel(
            base_url=provider.base_url, model=spec.name,
            api_key=provider.api_key.get_secret_value() if provider.api_key else None,
            timeout_s=provider.timeout_s, max_retries=provider.max_retries,
            supports_tools=spec.tools, supports_json_schema=spec.json_schema,
            supports_streaming=spec.streaming, client=clients[spec.provider])
        if provider.external:
            model = RedactingChatModel(model, find_pii)
        routes[alias] = Route(alias=alias, model=model, price=Price(
            spec.input_usd_per_mtok, spec.output_usd_per_mtok),
            context_tokens=spec.context_tokens)
    log.info("chat models: %s", ", ".join(f"{a}={r.model_name}" for a, r in routes.items()))
    return (LlmRouter(routes, llm.action_models, tenant_overrides=llm.tenant_action_models),
            list(clients.values()))


def build_local_llm(settings: Settings) -> tuple[LlmRouter, list[httpx.AsyncClient],
                                                 LocalModelLease]:
    """Every route on the embedded model server (started by the first call that needs it).
    Ours, so nothing is redacted; its window is the server's, which each step is fitted to."""
    local = settings.llm.local
    store = ModelStore(settings.models_dir)
    path = store.resolve(local.model)
    alias = path.stem  # an installed model's file is named after it
    server = EmbeddedModelServer(settings.data_dir / "llm", path, alias=alias,
                                 threads=local.threads, context_tokens=local.context_tokens,
                                 chat_format=local.chat_format,
                                 start_timeout_s=local.start_timeout_s)
    lease = LocalModelLease(settings.data_dir, server)
    client = httpx.AsyncClient(timeout=httpx.Timeout(local.timeout_s))
    model = LocalServerChatModel(lease, model=alias, client=client, timeout_s=local.timeout_s,
                                 supports_tools=local.tools,
                                 max_tokens=local.max_output_tokens)
    route = Route(alias="local", model=model, price=Price(),
                  context_tokens=local.context_tokens, output_tokens=local.max_output_tokens)
    routes = {"local": route}
    log.info("chat model: local %s (%s)", alias, path)
    return (LlmRouter(routes, {r.value: "local" for r in RouteName}), [client], lease)


def default_engine(llm: LlmSettings, local: Estimate | None = None) -> EngineChoice:
    """What a conversation without a choice runs on: ``provider=local`` unless this machine
    was measured too slow for it (``local``: a typical turn's first token past 20 s), else
    the configured endpoint, else the offline engine."""
    if llm.is_local and not (local is not None and local.slow):
        return EngineChoice.LOCAL
    return EngineChoice.CLOUD if llm.cloud_configured else EngineChoice.OFFLINE


def local_estimate(settings: Settings) -> Estimate | None:
    """A typical turn on the local model on this machine, when it was measured here."""
    name = local_model_name(settings)
    speed = machine_speed.stored(settings.data_dir, name) if name else None
    return Estimate.of(speed) if speed is not None else None


async def measure_local(settings: Settings) -> Speed:
    """Time the local model on this machine and keep the figures (``machine_speed``). Starts
    the embedded model server for it when none is running, and leaves it as it found it."""
    router, clients, lease = await asyncio.to_thread(build_local_llm, settings)
    try:
        model = router.for_tenant("measure")[RouteName.INQUIRE].model
        speed = await machine_speed.measure(model, timeout_s=settings.llm.local.timeout_s)
        machine_speed.keep(settings.data_dir, speed)
        return speed
    finally:
        for client in clients:
            await client.aclose()
        await asyncio.to_thread(lease.close)


def can_serve_local() -> bool:
    """llama-cpp-python (the ``local-llm`` extra) is installed to serve a local model."""
    return importlib.util.find_spec("llama_cpp") is not None


def local_model_name(settings: Settings) -> str | None:
    """The local model a conversation may choose: the configured one (``provider=local`` or
    ``llm.local.model``), else the installed model in use when llama-cpp-python is there to
    serve it; None without one. Reads the disk only: nothing is installed or started."""
    local = settings.llm.local
    if local.model and (local.model.endswith(".gguf") or os.sep in local.model):
        return Path(local.model).stem  # build_local_llm names the model after its file
    if local.model or settings.llm.is_local:
        return local.model or ModelStore(settings.models_dir).current()
    if not can_serve_local():
        return None
    store = ModelStore(settings.models_dir)
    current = store.current()
    return current if store.path_of(current).exists() else None


def offered_engines(settings: Settings) -> list[OfferedEngine]:
    """The engines this deployment offers, each named with the model of its answers (a
    model endpoint by the model of the inquiry route, its main call)."""
    llm = settings.llm
    estimate = local_estimate(settings)
    default = default_engine(llm, estimate)
    offered = [OfferedEngine(id=EngineChoice.OFFLINE, label="Offline engine")]
    if (local := local_model_name(settings)) is not None:
        cost = f" — {estimate.words()}" if estimate is not None else ""
        offered.append(OfferedEngine(id=EngineChoice.LOCAL, label=f"Local model · {local}{cost}",
                                     model=local))
    if llm.cloud_configured:
        alias = (llm.action_models.get(RouteName.INQUIRE.value)
                 or DEFAULT_ALIASES[RouteName.INQUIRE])
        spec = llm.models.get(alias)
        name = spec.name if spec is not None else alias
        offered.append(OfferedEngine(id=EngineChoice.CLOUD, label=f"Cloud model · {name}",
                                     model=name))
    return [e.model_copy(update={"default": e.id is default}) for e in offered]
