"""The book's reserved symbols: each has one meaning, written through one math macro.

The macros are defined twice, for MathJax (``mathjax3_config`` in ``_config.yml``) and for LaTeX (the
``latex_elements.preamble``), so that the HTML and the PDF agree. A reserved symbol's raw TeX command
(``\\lambda``, ``\\mu``, ...) may not appear in the book's Markdown math, where it would be read with a
second meaning; the macro names the meaning (``\\pa(i)`` the parent, ``\\mult`` the multipliers).
Run as a script to list every violation in the book.
"""

import functools
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

# raw command -> what to write instead (the macros of _config.yml that render it)
RESERVED = {
    r"\lambda": r"\pa(i) for a parent (an eigenvalue is \ev, a multiplier \mult)",
    r"\mu": r"\ch(i) for the children (constraint-force components are \mult)",
    r"\nu": r"\mult for multipliers",
    r"\Lambda": r"\Lam (articulated mobility) or \Lamc (the mobility within the whole chain)",
    r"\Pi": r"\imp for an impulse's magnitude",
    r"\zeta": r"\ev for an eigenvalue",
}
# plot labels and other strings in code: a parent or children set is never plotted
RESERVED_IN_CODE = (r"\lambda", r"\mu")
# the notation page's map of the source notes quotes the notes' own symbols
QUOTING_SECTIONS = {"notation.md": "(notation-map)="}
_RAW = re.compile(r"\\(" + "|".join(re.escape(s[1:]) for s in RESERVED) + r")(?![A-Za-z])")
# TeX commands that begin like a macro but are not one (anything else, e.g. ``\multlt``, is a macro glued to letters)
KNOWN_LOOKALIKES = {"partial", "parallel", "chi", "check", "Lambda", "implies", "impliedby", "paragraph"}


@functools.cache
def config_macros(config=ROOT / "_config.yml"):
    """The MathJax macros and the LaTeX preamble's macros, as two {name: definition} dicts."""
    sphinx = yaml.safe_load(Path(config).read_text())["sphinx"]["config"]
    mathjax = sphinx["mathjax3_config"]["tex"]["macros"]
    latex = dict(re.findall(r"\\newcommand\{\\(\w+)\}\{(.*)\}\s*$", sphinx["latex_elements"]["preamble"], re.M))
    return mathjax, latex


def raw_symbols(text):
    """The reserved raw commands in a piece of TeX or Markdown, in order."""
    return ["\\" + m.group(1) for m in _RAW.finditer(text)]


def _markdown_cells(path):
    """(place, text) of what a page shows as Markdown: its Markdown cells and its code's Markdown outputs."""
    if path.suffix == ".md":
        text = path.read_text()
        marker = QUOTING_SECTIONS.get(path.name)
        if marker and marker in text:
            text = text[:text.index(marker)]
        yield "text", text
        return
    nb = json.loads(path.read_text())
    for index, cell in enumerate(nb["cells"]):
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            yield f"cell {index}", source
        elif cell["cell_type"] == "code":
            for output in cell.get("outputs", []):
                markdown = output.get("data", {}).get("text/markdown")
                if markdown:
                    yield f"cell {index} output", "".join(markdown)


def _code_cells(path):
    if path.suffix != ".ipynb":
        return
    nb = json.loads(path.read_text())
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            yield f"cell {index} code", "".join(cell["source"])


def glued_macros(text, macros=None):
    """Commands that start with a macro's name but are neither a macro nor a known TeX command (``\\multlt``)."""
    macros = set(macros or config_macros()[0])
    prefixes = "|".join(sorted(macros, key=len, reverse=True))
    return ["\\" + m.group(1) for m in re.finditer(r"\\((?:" + prefixes + r")[A-Za-z]*)", text)
            if m.group(1) not in macros and m.group(1) not in KNOWN_LOOKALIKES]


def violations(path):
    """[(place, raw symbol, advice)] for every reserved raw symbol a page writes outside its macro."""
    found = []
    macros = config_macros()[0]
    for place, text in _markdown_cells(path):
        found += [(place, s, RESERVED[s]) for s in raw_symbols(text)]
        found += [(place, s, "a macro glued to the letters after it: add a space or braces") for s in
                  glued_macros(text, macros)]
    for place, text in _code_cells(path):
        found += [(place, s, RESERVED[s]) for s in raw_symbols(text) if s in RESERVED_IN_CODE]
    return found


def pages(root=ROOT):
    return sorted([*(root / "chapters").glob("*.ipynb"), *(root / "exercises").glob("*.ipynb"),
                   *(root / "book").glob("*.ipynb"), *(root / "book").glob("*.md")])


def main(paths):
    bad = 0
    for path in paths or pages():
        path = Path(path)
        shown = path.relative_to(ROOT) if path.is_absolute() else path
        for place, symbol, advice in violations(path):
            bad += 1
            print(f"{shown}: {place}: {symbol} -> {advice}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
