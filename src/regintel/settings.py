"""One typed settings tree, read once from the environment (prefix ``REGINTEL_``) and injected.

Nothing reads the environment at import time: ``get_settings()`` builds the tree on first use
and caches it; tests build their own ``Settings(...)`` and pass it to the container.
"""

from __future__ import annotations

import secrets
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from regintel.errors import ConfigurationError

# Secrets that are obviously not secret; refusing them outside the demo prevents a copied
# example config from signing real sessions.
_WEAK_SECRETS = frozenset({"", "secret", "changeme", "change-me", "changethis", "regintel", "dev"})
_MIN_SECRET_LENGTH = 32


class _Group(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EmbeddingProvider(StrEnum):
    LOCAL = "local"
    OPENAI = "openai"


class DatabaseSettings(_Group):
    pool_size: int = Field(10, ge=1, le=200, description="Connections per process in the pool.")
    connect_timeout_s: float = Field(10.0, gt=0, description="Timeout for one connection attempt.")
    hnsw_m: int = Field(16, ge=4, le=100, description="pgvector HNSW `m` for the chunk index.")
    hnsw_ef_construction: int = Field(
        64, ge=8, le=1000, description="pgvector HNSW `ef_construction` for the chunk index."
    )
    embedded_start_timeout_s: float = Field(
        30.0, gt=0, description="How long to wait for the embedded Postgres to accept connections."
    )


class GraphSettings(_Group):
    name: str = Field("regintel", pattern=r"^[A-Za-z][A-Za-z0-9_]{0,62}$",
                      description="Graph (key) name inside the graph server.")
    appendfsync: str = Field(
        "always", pattern="^(always|everysec)$",
        description="Embedded FalkorDB AOF fsync policy; `always` keeps every acknowledged write.",
    )


class EmbeddingSettings(_Group):
    provider: EmbeddingProvider = Field(EmbeddingProvider.LOCAL, description="Who embeds text.")
    model: str = Field("all-MiniLM-L6-v2", description="Embedding model name.")
    dimension: int = Field(384, ge=8, le=4096, description="Vector size stored in pgvector.")
    # Measured on 2 CPU cores with 1,000-character chunks: batches of 8–16 embed ~30 chunks/s,
    # 64 only ~25 (larger batches pay for padding and attention over more tokens at once).
    batch_size: int = Field(16, ge=1, le=1024, description="Texts per embedding batch.")
    base_url: str | None = Field(None, description="OpenAI-compatible embeddings endpoint.")
    api_key: SecretStr | None = Field(None, description="Key for the embeddings endpoint.")


class LlmProvider(_Group):
    """One OpenAI-compatible endpoint (OpenAI, Groq, vLLM, Ollama, llama.cpp, a gateway)."""

    base_url: str = Field(description="Chat endpoint including the version prefix, e.g. "
                          "https://api.openai.com/v1 or http://localhost:11434/v1.")
    api_key: SecretStr | None = Field(None, description="Bearer key; local servers need none.")
    external: bool = Field(True, description="Data leaves our control: personal data is "
                           "redacted from every message first. False for a model you host.")
    timeout_s: float = Field(60.0, gt=0, description="Per-request wait (connect, or silence "
                             "between streamed events).")
    max_retries: int = Field(2, ge=0, le=6, description="Retries of retryable failures.")


DEFAULT_CONTEXT_TOKENS = 128_000  # today's common window (gpt-4o, Llama 3.1)


class LlmModel(_Group):
    """A model alias: which provider serves it, what it can do, what it costs."""

    provider: str = Field("default", description="Key in `providers` (or the default one).")
    name: str = Field(description="The provider's model name.")
    tools: bool = Field(True, description="Supports tool calls (concept capture).")
    json_schema: bool = Field(True, description="Supports JSON-schema structured outputs.")
    streaming: bool = Field(True, description="Supports streamed answers.")
    context_tokens: int = Field(DEFAULT_CONTEXT_TOKENS, ge=2048, description=(
        "The model's context window in tokens: a policy audit shows the model the whole policy "
        "in each call when the policy fits a quarter of it."))
    input_usd_per_mtok: float = Field(0.0, ge=0, description="Price per million input tokens.")
    output_usd_per_mtok: float = Field(0.0, ge=0, description="Price per million output "
                                       "tokens.")


def _default_models() -> dict[str, LlmModel]:
    # OpenAI list prices (USD per million tokens) at the time of writing; override per model.
    return {
        "small": LlmModel(name="gpt-4o-mini", input_usd_per_mtok=0.15, output_usd_per_mtok=0.60),
        "large": LlmModel(name="gpt-4o", input_usd_per_mtok=2.50, output_usd_per_mtok=10.00),
    }


class LocalModelSettings(_Group):
    """The embedded model server (``llama-cpp-python[server]``) that ``provider=local`` starts
    on demand under the data directory."""

    model: str | None = Field(
        None, description="An installed model's name (`regintel model list`) or a GGUF path; "
        "unset: the one chosen by `regintel model use`, else the packaged 0.5B model.")
    threads: int = Field(2, ge=1, le=256, description="CPU threads the server generates with.")
    context_tokens: int = Field(4096, ge=1024, le=131_072, description="The server's context "
                                "window (n_ctx); every step is fitted into it.")
    chat_format: str = Field("chatml", description="llama.cpp chat format of the model's "
                             "template (Qwen2.5 uses ChatML).")
    tools: bool = Field(False, description="The template's tool calls can be streamed by the "
                        "server; llama.cpp's ChatML formats cannot, so concept capture uses "
                        "the offline extractor.")
    model_intent: bool = Field(False, description="Ask the model for the intent when the "
                               "rules are unsure. Off: the packaged 0.5B model took a plain "
                               "question for a comparison; the rules decide.")
    model_tone: bool = Field(False, description="Ask the model to check and rewrite an "
                             "answer's tone. Off: the 0.5B model's rewrites changed citation "
                             "markers or ran out of tokens; the rules check the tone.")
    max_output_tokens: int = Field(700, ge=64, le=8192, description="Most tokens one answer "
                                   "may generate (kept free in the window).")
    start_timeout_s: float = Field(180.0, gt=0, description="How long to wait for the server "
                                   "to load the model and answer.")
    timeout_s: float = Field(120.0, gt=0, description="One step's wait on the local model "
                             "(CPU prefill of a few thousand tokens takes tens of seconds).")


class LlmSettings(_Group):
    provider: str | None = Field(
        None, pattern="^(local)$", description="`local`: every route runs on the embedded "
        "model server (see `local`); unset: `base_url`/`providers`, else the offline engine.")
    local: LocalModelSettings = Field(default_factory=LocalModelSettings)
    base_url: str | None = Field(
        None, description="The default provider's endpoint; unset (and no `providers`) means "
        "the offline engine."
    )
    api_key: SecretStr | None = Field(None, description="Key for the default endpoint.")
    external: bool = Field(True, description="The default endpoint is outside our control "
                           "(personal data is redacted before anything is sent).")
    timeout_s: float = Field(60.0, gt=0, description="Per-request timeout (default endpoint).")
    audit_timeout_s: float = Field(180.0, gt=0, description="The model's whole audit; past "
                                   "it the offline audit answers instead.")
    providers: dict[str, LlmProvider] = Field(
        default_factory=dict, description="Further named endpoints, used by `models`.")
    models: dict[str, LlmModel] = Field(
        default_factory=_default_models, description="Model alias → provider, name, "
        "capabilities and price.")
    action_models: dict[str, str] = Field(
        default_factory=lambda: {
            "summarize": "small",
            "inquire": "small",
            "compare_focused": "small",
            "compare_holistic": "large",
            "audit": "large",
            "steps": "small",
        },
        description="Route → model alias. Routes: the actions (compare split into focused "
        "and holistic) and `steps` (intent, document resolution, thread summary, tone).",
    )
    tenant_action_models: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="Tenant slug → routes it overrides.")

    @property
    def configured(self) -> bool:
        return self.is_local or self.cloud_configured

    @property
    def cloud_configured(self) -> bool:
        """A model endpoint is configured (whether or not it is the default engine)."""
        return self.base_url is not None or bool(self.providers)

    @property
    def is_local(self) -> bool:
        return self.provider == "local"


class RetrievalSettings(_Group):
    bm25_k1: float = Field(0.9, gt=0, description="BM25 term-frequency saturation.")
    bm25_b: float = Field(0.6, ge=0, le=1, description="BM25 length normalisation.")
    candidates: int = Field(50, ge=10, le=500,
                            description="Candidates taken from each of dense and lexical search.")
    rrf_k: int = Field(60, ge=1, description="Reciprocal-rank-fusion constant.")
    hnsw_ef_search: int = Field(100, ge=10, le=1000, description="pgvector hnsw.ef_search.")
    max_scope_documents: int = Field(5, ge=1, le=50,
                                     description="Most documents one question may target.")
    high_threshold: float = Field(0.337, ge=0, le=1,
                                  description="Top score at or above this is `high` confidence.")
    medium_threshold: float = Field(0.095, ge=0, le=1,
                                    description="Top score at or above this is `medium`.")
    adaptive_threshold: float = Field(0.3, ge=0, le=1,
                                      description="Adaptive-k keeps chunks scoring at least this.")


class UploadSettings(_Group):
    max_bytes: int = Field(50 * 1024 * 1024, ge=1, description="Largest accepted upload, bytes.")
    prepare_answers: bool = Field(
        True, description="Once a document is ready, embed its sentences as answers read "
        "them (a follow-up job, about as long as the document's own embedding), so that an "
        "offline answer's composition reads them back instead of embedding them.")
    prepare_audits: bool = Field(
        True, description="Once a document is ready, embed what an audit reads of it (a "
        "regulation's obligations, a policy's clauses, after its obligation register is "
        "built), so that a first audit takes seconds; off, a first audit embeds it itself.")


class WebSearchSettings(_Group):
    tavily_api_key: SecretStr | None = Field(
        None, description="Tavily key; unset shows web search as unavailable.")
    base_url: str = Field("https://api.tavily.com", description="Tavily endpoint.")
    max_results: int = Field(5, ge=1, le=20, description="Results per search.")
    timeout_s: float = Field(15.0, gt=0, description="Per-request timeout.")
    monthly_limit: int = Field(1000, ge=1, description="The plan's monthly searches (named in "
                               "the limit message).")


class QueueSettings(_Group):
    """The job queue's crash safety: a worker proves it is alive by a heartbeat; the jobs of a
    worker that stopped beating (killed, its machine lost) are run again by the others."""

    heartbeat_s: float = Field(10.0, gt=0, le=300, description="How often a worker records "
                               "that it is alive.")
    stalled_after_s: float = Field(
        60.0, gt=0, le=3600, description="A worker silent this long is taken for dead and its "
        "running jobs are retried (or given up once their retries are spent); keep it several "
        "heartbeats long.")
    recover_every_s: float = Field(30.0, gt=0, le=3600, description="How often a running "
                                   "worker looks for the jobs of dead workers (it also looks "
                                   "when it starts).")

    @model_validator(mode="after")
    def _stall_outlasts_heartbeats(self) -> QueueSettings:
        # Shorter, a live worker between two heartbeats would be taken for dead and its job
        # run twice at once.
        if self.stalled_after_s < 2 * self.heartbeat_s:
            raise ValueError("queue.stalled_after_s must be at least twice queue.heartbeat_s")
        return self


class ServerSettings(_Group):
    host: str = Field("127.0.0.1", description="Bind address for `regintel serve`.")
    port: int = Field(8000, ge=1, le=65535, description="Bind port for `regintel serve`.")


class ApiSettings(_Group):
    """The HTTP API: sessions, browser protections and per-user rate limits."""

    cors_origins: list[str] = Field(
        default_factory=list, description="Origins allowed to call the API from a browser; "
        "empty keeps CORS closed (the UI is served from the same origin).")
    cookie_secure: bool = Field(
        False, description="Mark session cookies Secure (HTTPS only); set behind TLS.")
    session_ttl_hours: float = Field(24 * 7, gt=0, description="Lifetime of a browser session.")
    bearer_ttl_days: float = Field(30, gt=0, description="Lifetime of an API client's token.")
    invitation_ttl_days: float = Field(7, gt=0, description="How long an invitation is valid.")
    chat_per_minute: float = Field(30, gt=0, description="Chat turns a user may start per "
                                   "minute (token-bucket refill rate).")
    chat_burst: int = Field(10, ge=1, description="Chat turns a user may start at once.")
    upload_per_minute: float = Field(20, gt=0, description="Uploads a user may make per minute.")
    upload_burst: int = Field(10, ge=1, description="Uploads a user may make at once.")
    login_failures_per_account: int = Field(
        10, ge=1, description="Failed sign-ins one account (e-mail) may have per "
        "`login_window_s`; the next attempt is refused (429) for the back-off.")
    login_failures_per_address: int = Field(
        50, ge=1, description="Failed sign-ins one client address may have per "
        "`login_window_s` (higher: an office shares one address).")
    login_window_s: float = Field(60, gt=0, description="The window failed sign-ins are "
                                  "counted in.")
    login_backoff_s: float = Field(
        60, gt=0, description="How long the first block lasts; each repeated block doubles it.")
    login_backoff_max_s: float = Field(
        900, gt=0, description="The longest a sign-in block lasts (a locked-out user waits at "
        "most this long).")
    signups_per_address: int = Field(
        5, ge=1, description="Sign-ups one client address (and one e-mail) may make per "
        "`signup_window_s`.")
    signup_window_s: float = Field(
        600, gt=0, description="The window sign-ups are counted in; also the first block.")
    signup_backoff_max_s: float = Field(
        3600, gt=0, description="The longest a sign-up block lasts.")
    trust_forwarded_for: bool = Field(
        False, description="Behind a reverse proxy: take the client address from the last "
        "X-Forwarded-For entry (the one the proxy added). Off: the socket's peer address, "
        "since anyone can send the header.")
    first_event_wait_ms: float = Field(
        150, ge=0, description="How long a chat request waits for the pipeline's first event "
        "(so early refusals are plain 4xx answers) before the stream opens with `accepted`.")
    concurrent_turns: int | None = Field(
        None, ge=1, le=256, description="Chat turns one server process works on at once; "
        "later ones wait their turn (their stream opens with `accepted` at once). Unset: one "
        "per core on the offline engine, whose turns are CPU work (unbounded, every turn "
        "competes with every other and with the event loop, so under load everyone waits "
        "longer), and no limit with a model configured, whose turns mostly wait on the model.")


class ConceptSettings(_Group):
    max_active_nodes: int = Field(
        20, ge=1, le=500, description="Most graph nodes a conversation keeps in scope "
        "(activeNodeIds); the least recently referenced fall off first.")
    context_retention_days: int = Field(
        90, ge=1, le=3650, description="Conversation contexts idle this long are purged.")
    max_concepts_per_turn: int = Field(
        5, ge=1, le=50, description="Most concepts one turn captures (offline extractor and "
        "tool payloads alike).")
    tombstone_retention_days: int = Field(
        30, ge=1, le=3650, description="Graph deletions are kept this long for change-stream "
        "readers; a reader whose cursor is older is told to reload the graph.")
    change_poll_interval_s: float = Field(
        2.0, gt=0, le=60, description="How often the graph change stream polls for patches.")
    enrichment: bool = Field(
        True, description="Enqueue enrichment jobs for concepts the graph knows little about.")


class TracingSettings(_Group):
    langsmith: bool = Field(
        False, description="Send traces of each chat run to LangSmith (key from "
        "LANGSMITH_API_KEY). Off: nothing is traced, even if LANGSMITH_TRACING is set.")
    project: str = Field("regintel", description="The LangSmith project traces go to.")


class Settings(BaseSettings):
    """The whole configuration. Nested groups use ``__``: ``REGINTEL_LLM__BASE_URL``."""

    model_config = SettingsConfigDict(
        env_prefix="REGINTEL_",
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
    )

    data_dir: Path = Field(Path(".regintel"), description="Embedded databases, files, secrets.")
    database_url: SecretStr | None = Field(
        None, description="External Postgres with pgvector; unset starts the embedded server."
    )
    graph_url: str | None = Field(
        None,
        description="falkor://, redis://, unix:// (FalkorDB) or bolt:// (Memgraph/Neo4j); "
        "unset starts the embedded FalkorDB.",
    )
    secret_key: SecretStr | None = Field(None, description="Signs sessions; required outside demo.")
    demo: bool = Field(False, description="Demo mode: may generate and persist a secret key.")
    demo_data_dir: Path = Field(
        Path("../shared/data"), description="Shared data the demo corpus is loaded from "
        "(ADGM rulebooks, GDPR); the sample company policy ships with the package.")
    log_level: str = Field("INFO", description="Root log level.")

    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    graph: GraphSettings = Field(default_factory=GraphSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    llm: LlmSettings = Field(default_factory=LlmSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    upload: UploadSettings = Field(default_factory=UploadSettings)
    queue: QueueSettings = Field(default_factory=QueueSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    web_search: WebSearchSettings = Field(default_factory=WebSearchSettings)
    concepts: ConceptSettings = Field(default_factory=ConceptSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    tracing: TracingSettings = Field(default_factory=TracingSettings)

    @field_validator("graph_url")
    @classmethod
    def _known_graph_scheme(cls, value: str | None) -> str | None:
        if value is None:
            return None
        scheme = value.split("://", 1)[0].lower()
        if scheme not in {"falkor", "falkors", "redis", "rediss", "unix", "bolt", "neo4j"}:
            raise ValueError(f"unsupported graph URL scheme {scheme!r}")
        return value

    @property
    def pg_dir(self) -> Path:
        return self.data_dir / "pg"

    @property
    def graph_dir(self) -> Path:
        return self.data_dir / "graph"

    @property
    def files_dir(self) -> Path:
        return self.data_dir / "files"

    @property
    def models_dir(self) -> Path:
        return self.data_dir / "models"


def resolve_secret_key(settings: Settings) -> str:
    """The key that signs sessions. Demo mode generates one once and keeps it in the data dir;
    anything else must configure a real secret, so a forgotten setting cannot ship."""
    if settings.secret_key is not None:
        value = settings.secret_key.get_secret_value()
        if value.strip().lower() in _WEAK_SECRETS or len(value) < _MIN_SECRET_LENGTH:
            raise ConfigurationError(
                "REGINTEL_SECRET_KEY is a placeholder or shorter than 32 characters",
                hint="generate one with: "
                "python -c 'import secrets; print(secrets.token_urlsafe(48))'",
            )
        return value
    if not settings.demo:
        raise ConfigurationError(
            "REGINTEL_SECRET_KEY is not set",
            hint="set REGINTEL_SECRET_KEY to a random string of 32+ characters, "
            "or run `regintel demo` for a local demo",
        )
    path = settings.data_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(48)
    path.write_text(value)
    path.chmod(0o600)
    return value


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
