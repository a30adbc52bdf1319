"""LlmRouter: which model runs which part of a turn, and what it costs.

Routes are the actions (``compare`` split into ``compare_focused`` and ``compare_holistic``,
because a whole-document comparison needs the larger model) plus ``steps`` — the short calls
around them (intent, document resolution, thread summary, tone). Each route names a model alias
from settings; a tenant may override any route. The router is built once by the composition
root over the chat models it made (one per alias); ``for_tenant`` is what a turn uses.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from regintel.errors import ConfigurationError
from regintel.ports.llm import ChatModel
from regintel.settings import DEFAULT_CONTEXT_TOKENS

log = logging.getLogger(__name__)


# Sizing text against a window without the model's tokenizer: regulatory English runs nearer
# 3.5 characters a token than 4 (numbers, clause ids, capitalised terms), so 3 keeps a margin.
CHARS_PER_TOKEN = 3
PROMPT_MARGIN_TOKENS = 100  # the chat template's own tokens, message headers
MIN_EVIDENCE_TOKENS = 300


class RouteName(StrEnum):
    SUMMARIZE = "summarize"
    INQUIRE = "inquire"
    COMPARE_FOCUSED = "compare_focused"
    COMPARE_HOLISTIC = "compare_holistic"
    AUDIT = "audit"
    STEPS = "steps"


# What a route uses when settings leave it out (an env override replaces the whole map).
DEFAULT_ALIASES: Mapping[RouteName, str] = {
    RouteName.SUMMARIZE: "small", RouteName.INQUIRE: "small",
    RouteName.COMPARE_FOCUSED: "small", RouteName.COMPARE_HOLISTIC: "large",
    RouteName.AUDIT: "large", RouteName.STEPS: "small",
}


@dataclass(frozen=True)
class Price:
    input_usd_per_mtok: float = 0.0
    output_usd_per_mtok: float = 0.0

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input_usd_per_mtok
                + output_tokens * self.output_usd_per_mtok) / 1_000_000


@dataclass(frozen=True)
class Route:
    alias: str
    model: ChatModel
    price: Price = Price()
    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    output_tokens: int = 4096  # kept free in the window for the answer

    def evidence_chars(self, *fixed: str) -> int:
        """Characters of evidence one call may add to ``fixed`` (its prompts) and still leave
        ``output_tokens`` free in the window; at least one passage's worth."""
        free = self.context_tokens - self.output_tokens - sum(map(len, fixed)) // CHARS_PER_TOKEN
        return max(free - PROMPT_MARGIN_TOKENS, MIN_EVIDENCE_TOKENS) * CHARS_PER_TOKEN

    @property
    def model_name(self) -> str:
        return self.model.model_name


class TenantRoutes:
    """The routes of one tenant: its overrides over the defaults."""

    def __init__(self, routes: Mapping[RouteName, Route]) -> None:
        self._routes = dict(routes)

    def __getitem__(self, name: RouteName) -> Route:
        return self._routes[name]


class LlmRouter:
    def __init__(self, models: Mapping[str, Route], action_models: Mapping[str, str], *,
                 tenant_overrides: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self._models = dict(models)
        known = {r.value for r in RouteName}
        for where, mapping in [("action_models", action_models),
                               *((f"tenant_action_models[{t}]", m)
                                 for t, m in (tenant_overrides or {}).items())]:
            unknown = set(mapping) - known
            if unknown:
                raise ConfigurationError(
                    f"{where} names unknown routes {sorted(unknown)}",
                    hint=f"routes are {', '.join(sorted(known))}")
            missing = {a for a in mapping.values() if a not in self._models}
            if missing:
                raise ConfigurationError(f"{where} uses model aliases {sorted(missing)} that "
                                         "REGINTEL_LLM__MODELS does not define")
        self._default = self._resolve(action_models, {})
        self._tenants = {tenant: self._resolve(action_models, overrides)
                         for tenant, overrides in (tenant_overrides or {}).items()}

    def _resolve(self, action_models: Mapping[str, str],
                 overrides: Mapping[str, str]) -> TenantRoutes:
        routes: dict[RouteName, Route] = {}
        for name in RouteName:
            alias = overrides.get(name) or action_models.get(name) or DEFAULT_ALIASES[name]
            if alias not in self._models:
                raise ConfigurationError(
                    f"route {name.value} needs model alias {alias!r}, which is not configured",
                    hint="define it in REGINTEL_LLM__MODELS or map the route to another alias")
            routes[name] = self._models[alias]
        return TenantRoutes(routes)

    def for_tenant(self, *keys: str) -> TenantRoutes:
        """The routes for the first of ``keys`` (tenant id, slug) that has overrides."""
        return next((self._tenants[k] for k in keys if k in self._tenants), self._default)
