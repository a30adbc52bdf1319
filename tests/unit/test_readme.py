"""The README a newcomer reads: what the product does, the two commands (the test command
exactly as CI runs it), how to use a model and deploy on a server, where the figures come
from, in about three screens, with no development history or internal issue numbers. The
benchmark catalogue it points to, docs/benchmarks.md, names every `regintel bench` command
there is and none that is not."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main
from pydantic import BaseModel
from typer.core import TyperGroup

import regintel.cli  # noqa: F401 (registers the commands)
from regintel.cli.app import app
from regintel.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
BENCHMARKS = ROOT / "docs" / "benchmarks.md"
MAX_LINES = 180
# Environment variables the README names that are read outside the settings tree.
NOT_SETTINGS = {"REGINTEL_WHEEL_CACHE": ROOT / "scripts" / "bootstrap.sh"}


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """The text under a `## ` heading up to the next one."""
    assert f"\n{heading}\n" in text, heading
    return text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def _flat(text: str) -> str:
    """Prose with its line breaks as spaces, so a phrase wrapped across lines is found."""
    return " ".join(text.split())


def _cli() -> TyperGroup:
    group = typer.main.get_group(app)
    assert isinstance(group, TyperGroup)
    return group


def test_the_readme_fits_on_about_three_screens() -> None:
    assert len(_readme().splitlines()) <= MAX_LINES


def test_the_two_commands_are_the_ones_ci_and_make_run() -> None:
    two = _section(_readme(), "## Two commands")
    block = two.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    assert commands == ["make demo", "make test"]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert ci == ["make test"], "CI must run exactly the README's test command"
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("demo", "test"):
        assert re.search(rf"^{target}:", makefile, re.M), target
    assert "--port" in two and "REGINTEL_DATA_DIR" in two


def test_the_readme_says_how_to_configure_a_model() -> None:
    model = _flat(_section(_readme(), "## Use a model"))
    for needed in ("REGINTEL_LLM__BASE_URL", "REGINTEL_LLM__API_KEY", "REGINTEL_LLM__MODELS",
                   "REGINTEL_LLM__PROVIDERS", "REGINTEL_LLM__PROVIDER=local",
                   "regintel model list", "offline engine"):
        assert needed in model, needed


def test_the_readme_says_how_to_deploy_on_a_server() -> None:
    deploy = _flat(_section(_readme(), "## Deploy on a server"))
    for needed in ("REGINTEL_SECRET_KEY", "REGINTEL_DATABASE_URL", "REGINTEL_GRAPH_URL",
                   "regintel migrate", "regintel serve", "regintel worker", "/healthz",
                   "Tenancy"):
        assert needed in deploy, needed


def test_every_setting_the_readme_names_exists() -> None:
    """A renamed setting would leave the README configuring nothing: pydantic-settings
    ignores an environment variable it does not know."""
    names = set(re.findall(r"\bREGINTEL_[A-Z0-9_]*[A-Z0-9]", _readme()))
    assert len(names) >= 15
    for name in sorted(names):
        if name in NOT_SETTINGS:
            assert name in NOT_SETTINGS[name].read_text(encoding="utf-8"), name
            continue
        model: type[BaseModel] | None = Settings
        for part in name.removeprefix("REGINTEL_").lower().split("__"):
            assert model is not None and part in model.model_fields, name
            annotation = model.model_fields[part].annotation
            # A nested group goes on; a dict (providers, models) or a value ends the path.
            model = annotation if isinstance(annotation, type) and issubclass(
                annotation, BaseModel) else None


def test_every_command_the_docs_name_exists() -> None:
    group = _cli()
    for doc in (README, BENCHMARKS):
        text = doc.read_text(encoding="utf-8")
        for match in re.finditer(r"(?<![\w.-])regintel ([a-z][\w-]*)(?: ([a-z][\w-]*))?", text):
            command, sub = match.groups()
            assert command in group.commands, f"{doc.name}: {match.group(0)}"
            found = group.commands[command]
            if isinstance(found, TyperGroup) and sub:
                assert sub in found.commands, f"{doc.name}: {match.group(0)}"


def test_the_benchmark_catalogue_is_complete() -> None:
    bench = _cli().commands["bench"]
    assert isinstance(bench, TyperGroup)
    text = BENCHMARKS.read_text(encoding="utf-8")
    documented = set(re.findall(r"regintel bench ([a-z][\w-]*)", text))
    assert documented == set(bench.commands)
    readme = _readme()
    figures = _flat(_section(readme, "## Where the figures come from"))
    assert "docs/benchmarks.md" in figures and "docs/measurements.md" in figures
    assert (ROOT / "docs" / "measurements.md").is_file()


def test_the_readme_points_to_the_projects_and_graph_pages() -> None:
    browser = _flat(_section(_readme(), "## In the browser"))
    for needed in ("**Projects**", "**Concept graph**", "main navigation", "/review/"):
        assert needed in browser, needed


def test_the_readme_carries_no_development_history() -> None:
    text = _readme()
    assert not re.search(r"\bissue \d+|\b\w+(-\w+)? session\b|What works today", text), (
        re.search(r".{40}(\bissue \d+|\b\w+(-\w+)? session\b).{40}", text))
