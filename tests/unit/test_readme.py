"""The README a newcomer reads (issue 38): what the product does, the two commands (the test
command exactly as CI runs it), how to change the demo's port and data directory, how to use a
model and deploy on a server, and for each figure the command that prints it — no development
history or internal issue numbers."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

import regintel.cli  # noqa: F401 (registers the commands)
from regintel.cli.app import app

README = Path(__file__).resolve().parents[2] / "README.md"


def _commands() -> set[str]:
    group = typer.main.get_group(app)
    names = set(group.commands)
    bench = group.commands["bench"]
    names |= {f"bench {n}" for n in bench.commands}  # type: ignore[attr-defined]
    return names


def test_the_readme_says_what_a_newcomer_needs() -> None:
    text = README.read_text(encoding="utf-8")
    assert "make demo" in text and "make test" in text
    for needed in ("--port", "REGINTEL_DATA_DIR", "### Use a model", "### Deploy on a server",
                   "REGINTEL_LLM__BASE_URL", "REGINTEL_DATABASE_URL", "## Where the figures "
                   "come from"):
        assert needed in text, needed


def test_the_readme_carries_no_development_history() -> None:
    text = README.read_text(encoding="utf-8")
    assert not re.search(r"\bissue \d+|\b\w+(-\w+)? session\b|What works today", text), (
        re.search(r".{40}(\bissue \d+|\b\w+(-\w+)? session\b).{40}", text))


def test_every_figure_names_a_command_that_exists() -> None:
    text = README.read_text(encoding="utf-8")
    table = text.split("## Where the figures come from", 1)[1].split("\n## ", 1)[0]
    rows = [r for r in table.splitlines() if r.startswith("| ") and "---" not in r][1:]
    assert len(rows) >= 8
    known = _commands()
    for row in rows:
        command = re.search(r"`regintel (bench [\w-]+)", row)
        assert command and command.group(1) in known, row
