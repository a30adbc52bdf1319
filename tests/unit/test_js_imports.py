"""The browser code's ES modules import one way: no module reaches itself through its imports.

A cycle between modules works in a browser until the first evaluation order that reads a
binding before it is initialised; screens importing `navigate` back from the router did so.
Read as text, without a browser: the static `import … from`, `export … from` and side-effect
`import '…'` specifiers of every script under static/js, relative ones only (vendored code
cannot import ours)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "src" / "regintel" / "web" / "static"
SCRIPTS = STATIC / "js"
VENDOR = STATIC / "vendor"

_SPEC = r"""\s*(['"])(?P<spec>[^'"\n]+)\1"""
# Each at the start of a line, so a mention in a comment's running text is not read as one.
_IMPORT_FROM = re.compile(r"^[ \t]*import\s+[\w$\s{},*]+?\s+from" + _SPEC, re.M)
_EXPORT_FROM = re.compile(
    r"^[ \t]*export\s+(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from" + _SPEC, re.M)
_SIDE_EFFECT = re.compile(r"^[ \t]*import" + _SPEC, re.M)


def specifiers(source: str) -> list[str]:
    """The relative module specifiers a script imports statically, in order of appearance."""
    found = [(m.start(), m.group("spec")) for pattern in (_IMPORT_FROM, _EXPORT_FROM, _SIDE_EFFECT)
             for m in pattern.finditer(source)]
    return [spec for _, spec in sorted(found) if spec.startswith(("./", "../"))]


def import_graph(root: Path) -> dict[str, list[str]]:
    """Each script under ``root`` (by its path relative to ``root``) → the scripts it imports."""
    graph: dict[str, list[str]] = {}
    for script in sorted(root.rglob("*.js")):
        name = script.relative_to(root).as_posix()
        targets: list[str] = []
        for spec in specifiers(script.read_text(encoding="utf-8")):
            target = (script.parent / spec).resolve()
            assert target.is_file(), f"{name} imports {spec}, which does not exist"
            if target.is_relative_to(root.resolve()):
                targets.append(target.relative_to(root.resolve()).as_posix())
            else:
                assert target.is_relative_to(VENDOR.resolve()), f"{name} imports {spec}"
        graph[name] = targets
    return graph


def find_cycle(graph: Mapping[str, Sequence[str]]) -> list[str] | None:
    """A cycle as the modules along it, the first repeated at the end; None when there is none."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(node: str) -> list[str] | None:
        if node in on_path:
            return [*path[path.index(node):], node]
        if node in done:
            return None
        path.append(node)
        on_path.add(node)
        for target in graph.get(node, ()):
            cycle = visit(target)
            if cycle:
                return cycle
        path.pop()
        on_path.remove(node)
        done.add(node)
        return None

    for start in sorted(graph):
        cycle = visit(start)
        if cycle:
            return cycle
    return None


def test_the_browser_code_has_no_import_cycle() -> None:
    graph = import_graph(SCRIPTS)
    assert len(graph) >= 20 and "main.js" in graph
    assert "screens/auth.js" in graph["main.js"]  # the parser does see the router's imports
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " → ".join(cycle or [])


def test_no_script_imports_the_router() -> None:
    """main.js is the entry point: what a screen needs of it belongs in a module below it."""
    importers = [name for name, targets in import_graph(SCRIPTS).items() if "main.js" in targets]
    assert importers == []


def test_the_cycle_finder_reports_a_cycle() -> None:
    assert find_cycle({"a.js": ["b.js"], "b.js": ["c.js"], "c.js": ["a.js"]}) == [
        "a.js", "b.js", "c.js", "a.js"]
    assert find_cycle({"main.js": ["x.js", "y.js"], "x.js": ["y.js"], "y.js": ["x.js"]}) == [
        "x.js", "y.js", "x.js"]
    assert find_cycle({"self.js": ["self.js"]}) == ["self.js", "self.js"]
    assert find_cycle({"a.js": ["b.js", "c.js"], "b.js": ["c.js"], "c.js": []}) is None


def test_every_static_import_form_is_read() -> None:
    source = "\n".join((
        "// A comment that says import { x } from './not-this.js' is running text.",
        "import { a, b as c } from './one.js';",
        "import {",
        "  d,",
        "  e,",
        "} from \"../two.js\";",
        "import f, { g } from './three.js';",
        "import * as h from './four.js';",
        "import './side-effect.js';",
        "export { i } from './five.js';",
        "export * from './six.js';",
        "import bare from 'cytoscape';",
        "const later = import('./dynamic.js');",
        "export function j() { return 'from ./nowhere.js'; }",
    ))
    assert specifiers(source) == ["./one.js", "../two.js", "./three.js", "./four.js",
                                  "./side-effect.js", "./five.js", "./six.js"]


def test_a_cycle_in_real_files_is_found(tmp_path: Path) -> None:
    (tmp_path / "screens").mkdir()
    (tmp_path / "main.js").write_text("import { s } from './screens/s.js';\n", encoding="utf-8")
    (tmp_path / "screens" / "s.js").write_text(
        "import { navigate } from '../main.js';\nexport const s = 1;\n", encoding="utf-8")
    graph = import_graph(tmp_path)
    assert graph == {"main.js": ["screens/s.js"], "screens/s.js": ["main.js"]}
    assert find_cycle(graph) == ["main.js", "screens/s.js", "main.js"]
