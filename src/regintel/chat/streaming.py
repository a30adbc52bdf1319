"""The answer as the user sees it arrive.

A model's answer is forwarded as it is generated; what the turn finally answers may differ
(a fallback after the model failed half-way, a tone rewrite, the output guardrail masking a
span). The contract with clients keeps it simple: the ``text`` deltas always spell a prefix of
the final answer, and when the final answer no longer starts with what was sent, a reset is
sent first (``{"reset": true}``) and the answer is sent again from the start.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Writer = Callable[[Any], None]
STREAM_PIECE = 80  # characters per text event when an answer is not generated token by token


def step(writer: Writer, node: str, text: str) -> None:
    """The step the turn is taking, in the user's words ("Searching 3 documents…"), sent as it
    starts: the graph's own events arrive only when a node ends."""
    writer({"step": text, "node": node})


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


class AnswerStream:
    """What has been sent of the answer so far. ``prefix`` (a notice such as "Analyzing X.")
    goes out before the first delta, so the stream reads like the final answer; ``sent`` is
    what an earlier node of the turn already sent (the stream continues from it)."""

    def __init__(self, writer: Writer, *, prefix: str = "", sent: str = "") -> None:
        self._writer = writer
        self._prefix = prefix
        self._sent: list[str] = [sent] if sent else []

    @property
    def text(self) -> str:
        return "".join(self._sent)

    def write(self, delta: str) -> None:
        if not delta:
            return
        if not self._sent and self._prefix:
            self._send(self._prefix)
        self._send(delta)

    def reset(self) -> None:
        if self._sent:
            self._writer({"reset": True})
            self._sent.clear()

    def finish(self, answer: str) -> None:
        """Send whatever of ``answer`` the client does not have yet (all of it after a reset)."""
        sent = self.text
        if sent and not answer.startswith(sent):
            self.reset()
            sent = ""
        rest = answer[len(sent):]
        for start in range(0, len(rest), STREAM_PIECE):
            self._send(rest[start:start + STREAM_PIECE])

    def _send(self, text: str) -> None:
        self._writer({"text": text})
        self._sent.append(text)
