"""``regintel model``: the local models the embedded model server can run."""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from regintel.adapters.llm.machine_speed import Estimate, Speed
from regintel.cli.app import JsonOption, app, fail, load_settings
from regintel.errors import InvalidRequest, RegintelError
from regintel.runtime.models import ModelInfo, ModelStore, pull_from_hub

model_app = typer.Typer(no_args_is_help=True, help="Local models: list, pull, use.")
app.add_typer(model_app, name="model")


def _store() -> ModelStore:
    return ModelStore(load_settings().models_dir)


def _show(models: list[ModelInfo], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps([asdict(m) for m in models], indent=2))
        return
    for m in models:
        mark = "*" if m.in_use else " "
        state = "installed" if m.installed else "not installed"
        typer.echo(f"{mark} {m.name:<40} {m.size / 1e6:>7.0f} MB  {m.licence:<12} {state}"
                   f"  ({m.title}; {m.source})")


@model_app.command("list")
def list_cmd(as_json: JsonOption = False) -> None:
    """The packaged and pulled models, their licences, and the one in use (*)."""
    _show(_store().list(), as_json)


@model_app.command("use")
def use_cmd(name: Annotated[str, typer.Argument(help="A name from `regintel model list`.")],
            as_json: JsonOption = False) -> None:
    """Choose the model the local server runs (a packaged one is assembled and verified)."""
    try:
        _show([_store().use(name)], as_json)
    except RegintelError as exc:
        fail(exc)


@model_app.command("pull")
def pull_cmd(
    source: Annotated[str, typer.Argument(help="A Hugging Face repo id (owner/name), or a "
                                          "local .gguf file.")],
    filename: Annotated[str | None, typer.Argument(help="The GGUF file in the repo.")] = None,
    name: Annotated[str | None, typer.Option(help="Install under this name.")] = None,
    revision: Annotated[str | None, typer.Option(help="A branch, tag or commit.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Install a model from the Hugging Face hub (HF_ENDPOINT for a mirror) or a local GGUF."""
    store = _store()
    try:
        local = Path(source).expanduser()
        if filename is None and (local.exists() or source.endswith(".gguf")):
            info = store.add_file(local, name=name)
        elif filename is None:
            fail(InvalidRequest(f"{source!r} is neither a GGUF file nor a repo with a file",
                               hint="regintel model pull <owner/repo> <file.gguf>"))
        else:
            info = pull_from_hub(store, source, filename, revision=revision, name=name,
                                 endpoint=os.environ.get("HF_ENDPOINT"))
    except RegintelError as exc:
        fail(exc)
    _show([info], as_json)


@model_app.command("measure")
def measure_cmd(as_json: JsonOption = False) -> None:
    """Time the local model on this machine (prefill and generation tokens/s), keep the
    figures in the data directory, and say what a typical turn costs here."""
    from regintel.builders import measure_local

    settings = load_settings()
    try:
        speed = asyncio.run(measure_local(settings))
    except (RegintelError, RuntimeError) as exc:
        fail(exc if isinstance(exc, RegintelError) else InvalidRequest(str(exc)))
    estimate = Estimate.of(speed)
    if as_json:
        typer.echo(json.dumps({**asdict(speed), "first_token_estimate_s": estimate.first_token_s,
                               "turn_estimate_s": estimate.turn_s, "slow": estimate.slow},
                              indent=2))
        return
    typer.echo(speed_line(speed))


def speed_line(speed: Speed) -> str:
    """What the local model costs here, in a sentence (``model measure``, ``demo``)."""
    estimate = Estimate.of(speed)
    line = (f"Local model {speed.model} on this machine: prefill "
            f"{speed.prefill_tokens_per_s:g} tokens/s, generation "
            f"{speed.generation_tokens_per_s:g} tokens/s; a typical question takes about "
            f"{estimate.first_token_s:.0f} s to its first word and {estimate.turn_s:.0f} s "
            "in all.")
    if estimate.slow:
        line += (" That is too slow to be the default here: the offline engine answers unless "
                 "a conversation chooses the local model.")
    return line
