"""Count the lines of code a reader sees in a chapter of the built book.

A code cell's input is visible unless a tag folds it away (``hide-input``, ``hide-cell``,
``remove-input``, ``remove-cell``: the HTML shows a toggle or nothing; nbval still runs the cell).
Library listings (``dl.show_source``) are code too: their stored Markdown output shows a code
block, visible unless the cell's output is folded (``hide-output``, ``remove-output``, ``hide-cell``,
``remove-cell``).  Blank lines do not count.

    python tools/visible_code.py chapters/*.ipynb      # a line per chapter, and the cells that show most
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

#: At most this many lines of code are visible in a chapter.
LIMIT = 200
#: A visible line of code fits a printed page (the PDF sets code at this many characters a line).
WIDTH = 88

HIDDEN_INPUT = {"hide-input", "hide-cell", "remove-input", "remove-cell"}
HIDDEN_OUTPUT = {"hide-output", "hide-cell", "remove-output", "remove-cell"}


def _lines(text):
    return [line for line in text.splitlines() if line.strip()]


def listed(cell):
    """The lines of code in the Markdown code blocks a cell's stored outputs show (its listings)."""
    lines = []
    for output in cell.get("outputs", []):
        markdown = output.get("data", {}).get("text/markdown")
        if markdown is None:
            continue
        inside = False
        for line in _lines("".join(markdown)):
            if line.startswith("```"):
                inside = not inside
            elif inside:
                lines.append(line)
    return lines


def listing_lines(cell):
    """How many lines of code a cell's listings show."""
    return len(listed(cell))


def too_wide(path, width=WIDTH):
    """``(cell index, line)`` for every visible line of code (input or listing) wider than ``width``."""
    cells = json.loads(Path(path).read_text())["cells"]
    wide = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        tags = set(cell.get("metadata", {}).get("tags", []))
        lines = [] if tags & HIDDEN_INPUT else _lines("".join(cell["source"]))
        lines += [] if tags & HIDDEN_OUTPUT else listed(cell)
        wide += [(index, line) for line in lines if len(line) > width]
    return wide


def visible_code(path):
    """Per code cell ``(index, input lines, listing lines)`` a reader sees in the notebook at ``path``."""
    cells = json.loads(Path(path).read_text())["cells"]
    seen = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        tags = set(cell.get("metadata", {}).get("tags", []))
        shown = 0 if tags & HIDDEN_INPUT else len(_lines("".join(cell["source"])))
        listed = 0 if tags & HIDDEN_OUTPUT else listing_lines(cell)
        if shown or listed:
            seen.append((index, shown, listed))
    return seen


def _names(source):
    """``(defined, used)``: the names a cell binds (assignments, definitions, parameters, imports) and
    the names it reads."""
    import ast

    from IPython.core.inputtransformer2 import TransformerManager

    tree = ast.parse(TransformerManager().transform_cell(source))
    defined, used = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else defined).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            defined.add(node.name)
    return defined, used


def names_from_folded_cells(path):
    """``(cell index, names)`` for each visible code cell that reads a name which only folded cells
    above it define: a reader of the printed page, or one who does not unfold, cannot know it."""
    import builtins

    cells = json.loads(Path(path).read_text())["cells"]
    folded_only, shown, found = set(), set(dir(builtins)), []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        defined, used = _names("".join(cell["source"]))
        if set(cell.get("metadata", {}).get("tags", [])) & HIDDEN_INPUT:
            folded_only |= defined - shown
            continue
        unseen = (used - defined - shown) & folded_only
        if unseen:
            found.append((index, sorted(unseen)))
        shown |= defined
        folded_only -= defined
    return found


def silent_checks(path):
    """Indices of folded code cells that assert something and show no output: the reader sees an
    empty toggle instead of what was verified."""
    cells = json.loads(Path(path).read_text())["cells"]
    shows = {"stream", "execute_result", "display_data"}
    return [index for index, cell in enumerate(cells)
            if cell["cell_type"] == "code" and set(cell.get("metadata", {}).get("tags", [])) & HIDDEN_INPUT
            and "assert" in "".join(cell["source"])
            and not any(output["output_type"] in shows for output in cell.get("outputs", []))]


def total(path):
    return sum(shown + listed for _, shown, listed in visible_code(path))


def main(paths):
    worst = 0
    for path in paths:
        seen = visible_code(path)
        count = sum(shown + listed for _, shown, listed in seen)
        top = sorted(seen, key=lambda c: -(c[1] + c[2]))[:5]
        cells = ", ".join(f"cell {i}: {s}+{listing}" for i, s, listing in top)
        print(f"{count:4d} {'OVER ' if count > LIMIT else ''}{path}   (largest: {cells})")
        worst = max(worst, count)
    return 1 if worst > LIMIT else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
