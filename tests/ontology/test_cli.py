"""``regintel project …`` end to end, through the real console script."""

from __future__ import annotations

import json

from tests.cli.conftest import RunCli, run_cli  # noqa: F401 (the fixture)


def test_project_commands(run_cli: RunCli) -> None:  # noqa: F811 (the imported fixture)
    def ok(*args: str) -> str:
        result = run_cli("project", *args)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    project = ok("create", "AI Act readiness", "--description", "Classify our AI systems.",
                 "-f", "facet_stage=planning")
    risk = ok("add", project, "risk", "Unregistered high-risk system", "-f", "impact=high")
    task = ok("add", project, "task", "Inventory AI systems", "-f", "due_at=2026-01-15",
              "-f", "priority=1")
    ok("link", task, "mitigates", risk)

    bad = run_cli("project", "link", risk, "mitigates", task)
    assert bad.returncode == 2 and "not an allowed relation" in bad.stderr

    focus = json.loads(ok("context", project, "--focus", risk))
    assert focus["type"] == "project_focus" and focus["focus"]["impact"] == "high"
    assert [r["other_id"] for r in focus["relationships"] if r["rel"] == "mitigates"] == [task]

    answer = json.loads(ok("ask", project, "which high risks have no mitigation?", "--json"))
    assert answer["intent"] == "unmitigated_risks" and risk not in answer["text"]
    listing = json.loads(ok("list", "--json"))
    assert [p["id"] for p in listing["projects"]] == [project]
