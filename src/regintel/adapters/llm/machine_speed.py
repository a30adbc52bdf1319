"""How fast the local model runs on this machine, measured once and kept in the data directory.

A small model on a few CPU cores can take a minute to its first token; offering it as an equal
choice without saying so breaks the user's trust at the first question. So the product times
the installed model once (``measure``: prompts of a typical turn's size, each followed by a
short generation),
keeps prefill and generation tokens/s per model in ``<data_dir>/llm/speed.json``, and every
place that offers the local model states what a typical turn costs here (``Estimate``). Where
the first token of a typical turn would take longer than ``SLOW_FIRST_TOKEN_S``, the offline
engine stays the default.

A typical turn's prompt and answer are the p50 of ``regintel bench llm`` on the product's
defaults (4096-token window): 1,260 prompt tokens, 150 answer tokens.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import statistics
import time
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from regintel.ports.llm import ChatMessage, ChatModel, ErrorChunk, TextChunk

log = logging.getLogger(__name__)

TYPICAL_PROMPT_TOKENS = 1260
TYPICAL_ANSWER_TOKENS = 150
SLOW_FIRST_TOKEN_S = 20.0
MEASURE_TOKENS = 24  # generated tokens timed: enough for a rate, short enough to wait for
# Timed calls; their median is kept. One call on a prompt a third of a turn's once overstated
# the first token 2.8 times (91 s estimated, 33 s measured p50 by ``regintel bench llm``): a
# fixed cost scaled up with the tokens, and a moment of load taken for the machine's speed.
MEASURE_CALLS = 3
CHARS_PER_PROSE_TOKEN = 4.5  # English prose, when no tokenizer can count it
# A prompt of ordinary regulatory prose the size of a typical turn's (about 1,260 tokens):
# prefill is timed on it.
_PROSE = ("A firm must keep records of each transaction for at least six years from the date "
          "the business relationship ends, and must make them available to the regulator on "
          "request without delay. ")
MEASURE_PROMPT = _PROSE * 25 + "\nRepeat the first sentence above, word for word."


def measure_prompt(call: int) -> str:
    """``MEASURE_PROMPT`` opening with the call's own line: a server that keeps the last
    prompt's cache would otherwise answer the next call from it, and time nothing."""
    return f"Measurement {call + 1}.\n{MEASURE_PROMPT}"


@dataclass(frozen=True)
class Speed:
    model: str
    prefill_tokens_per_s: float
    generation_tokens_per_s: float
    measured_at: str


@dataclass(frozen=True)
class Estimate:
    """A typical turn on this machine, from its measured ``Speed``."""

    first_token_s: float
    turn_s: float

    @classmethod
    def of(cls, speed: Speed) -> Estimate:
        first = TYPICAL_PROMPT_TOKENS / max(speed.prefill_tokens_per_s, 0.01)
        return cls(first_token_s=round(first, 1), turn_s=round(
            first + TYPICAL_ANSWER_TOKENS / max(speed.generation_tokens_per_s, 0.01), 1))

    @property
    def slow(self) -> bool:
        return self.first_token_s > SLOW_FIRST_TOKEN_S

    def words(self) -> str:
        """"about 45 s a turn on this machine" (rounded as a person would say it)."""
        turn = self.turn_s
        said = f"{turn:.0f} s" if turn < 90 else f"{turn / 60:.0f} min"
        return f"about {said} a turn on this machine"


def speed_file(data_dir: Path) -> Path:
    return data_dir / "llm" / "speed.json"


def stored(data_dir: Path, model: str) -> Speed | None:
    """The kept measurement of ``model`` (None when it was never measured here)."""
    try:
        kept = json.loads(speed_file(data_dir).read_text(encoding="utf-8"))
        return Speed(**kept[model])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def keep(data_dir: Path, speed: Speed) -> None:
    """Store ``speed`` beside the other models' (written whole, then renamed: a stop mid-write
    leaves the previous file)."""
    path = speed_file(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    kept: dict[str, object] = {}
    with contextlib.suppress(OSError, ValueError):
        kept = json.loads(path.read_text(encoding="utf-8"))
    kept[speed.model] = asdict(speed)
    part = path.with_suffix(".part")
    part.write_text(json.dumps(kept, indent=2), encoding="utf-8")
    os.replace(part, path)


async def measure(model: ChatModel, *, timeout_s: float = 300.0,
                  calls: int = MEASURE_CALLS) -> Speed:
    """Time ``model`` on prompts of a typical turn's size (``measure_prompt``): prefill is
    the prompt's tokens over the time to the first token, generation the next
    ``MEASURE_TOKENS`` tokens over their time; the median of ``calls`` calls of each. Raises
    ``RuntimeError`` when the model answers nothing (it is then not measured)."""
    # A first short call loads the model (and warms its cache of the chat template), so the
    # timed calls measure the machine, not the disk.
    await _tokens(model, [ChatMessage(role="user", content="Say yes.")], 1, timeout_s)
    counted = getattr(model, "count_tokens", None)  # the local server counts exactly
    prefill: list[float] = []
    generation: list[float] = []
    for call in range(calls):
        prompt = measure_prompt(call)
        start = time.perf_counter()
        first, tokens, end = await _tokens(model, [ChatMessage(role="user", content=prompt)],
                                           MEASURE_TOKENS, timeout_s, start)
        if first is None or tokens < 2 or end <= first:
            raise RuntimeError("the model generated too little to be timed")
        prompt_tokens = (await counted(prompt) if counted is not None else None) \
            or len(prompt) / CHARS_PER_PROSE_TOKEN
        prefill.append(prompt_tokens / first)
        generation.append((tokens - 1) / (end - first))
    return Speed(model=model.model_name,
                 prefill_tokens_per_s=round(statistics.median(prefill), 1),
                 generation_tokens_per_s=round(statistics.median(generation), 1),
                 measured_at=datetime.now(UTC).isoformat(timespec="seconds"))


async def _tokens(model: ChatModel, messages: list[ChatMessage], limit: int, timeout_s: float,
                  start: float | None = None) -> tuple[float | None, int, float]:
    """The time to the first token, the tokens streamed (at most ``limit``) and the time the
    last arrived, from ``start``."""
    begun = time.perf_counter() if start is None else start
    first: float | None = None
    tokens = 0
    end = 0.0
    async with contextlib.aclosing(model.stream(messages, timeout_s=timeout_s)) as chunks:
        async for chunk in chunks:
            if isinstance(chunk, ErrorChunk):
                raise RuntimeError(f"the model failed: {chunk.message}")
            if isinstance(chunk, TextChunk):
                end = time.perf_counter() - begun
                first = end if first is None else first
                tokens += 1
                if tokens >= limit:
                    break
    return first, tokens, end
