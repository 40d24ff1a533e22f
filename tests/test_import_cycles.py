"""No import cycle anywhere in the project, counting every import: top-level, inside a
function, under `TYPE_CHECKING`, and the modules named by string ("pkg.module:function", as
the `coach` table in bot/cli/main.py loads them, or `importlib.import_module("pkg.module")`).

A package's `__init__` that a submodule's import runs implicitly is Python's mechanics and is
not counted; an explicit import of the package is."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "coach", "retrieval", "serving", "content", "bench", "tests")
BY_STRING = re.compile(r"^((?:%s)(?:\.\w+)*):\w+$" % "|".join(PACKAGES))  # "pkg.module:function"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules(root: Path, packages=PACKAGES) -> dict[str, Path]:
    return {module_name(p, root): p for pkg in packages if (root / pkg).is_dir()
            for p in (root / pkg).rglob("*.py") if ".venv" not in p.parts}


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every project module this file names, wherever the import statement sits."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str) -> None:
        while target and target not in modules:  # `from a.b import func` names module a.b
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:  # `from pkg import module` names the module itself
                add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            matched = BY_STRING.match(node.value)
            if matched and matched.group(1) in modules:
                add(matched.group(1))
        elif isinstance(node, ast.Call) and _is_import_module(node.func) and node.args:
            if isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                add(node.args[0].value)
    return found


def _is_import_module(func: ast.expr) -> bool:
    return getattr(func, "attr", getattr(func, "id", None)) == "import_module"


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def import_graph(root: Path, packages=PACKAGES) -> dict[str, set[str]]:
    modules = project_modules(root, packages)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_the_project_has_no_import_cycle():
    graph = import_graph(ROOT)
    assert len(graph) > 300 and "bot.cli.grading" in graph["bot.cli.main"]  # the walk sees strings too
    assert cycles(graph) == []


def test_the_walk_finds_every_kind_of_cycle(tmp_path):
    """The check fails on a cycle made only by a function-level import, one made only under
    TYPE_CHECKING, and one made only by a module named in a string."""
    pkg = tmp_path / "bot"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    files = {
        "a.py": "def f():\n    from bot import b\n",
        "b.py": "import bot.a\n",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bot.d import Thing\n",
        "d.py": "from .c import x\nThing = 1\n",
        "e.py": 'HANDLERS = {"run": "bot.f:main"}\n',
        "f.py": "from bot.e import HANDLERS\n",
        "g.py": "from bot.a import f\n",  # imports into a cycle, is not part of one
        "h.py": "import importlib\nimportlib.import_module('bot.i')\n",
        "i.py": "import bot.h\nlog_name = 'bot.g'  # a string that only looks like a module\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    found = cycles(import_graph(tmp_path, packages=("bot",)))
    assert found == [["bot.a", "bot.b"], ["bot.c", "bot.d"], ["bot.e", "bot.f"], ["bot.h", "bot.i"]]
