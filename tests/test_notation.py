"""One notation: each reserved symbol has one meaning, written through one macro, the same on the web and in print."""

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import notation  # noqa: E402


def page(tmp_path, cells, name="nb.ipynb"):
    path = tmp_path / name
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def markdown(text):
    return {"cell_type": "markdown", "source": text, "metadata": {}}


def code(text, outputs=()):
    return {"cell_type": "code", "source": text, "metadata": {}, "outputs": list(outputs)}


def test_the_web_and_the_print_define_the_same_macros():
    mathjax, latex = notation.config_macros()
    assert mathjax == latex, "the macros of mathjax3_config and of the LaTeX preamble differ"
    assert set(mathjax) >= {"pa", "ch", "mult", "ev", "Lam", "Lamc", "imp"}


def test_the_notation_page_lists_every_macro_with_its_meaning():
    text = (ROOT / "book" / "notation.md").read_text()
    section = text[text.index("(notation-reserved)="):text.index("## Joint-space vectors")]
    mathjax, _ = notation.config_macros()
    for name in mathjax:
        assert f"`\\{name}`" in section, f"the notation page does not name the macro \\{name}"
        assert re.search(rf"\| \$\\{name}(?![A-Za-z])", section), f"no row of the reserved symbols shows \\{name}"


def test_every_reserved_raw_symbol_has_a_macro_for_it():
    mathjax, _ = notation.config_macros()
    rendered = " ".join(mathjax.values())
    for raw in notation.RESERVED:
        assert re.search(re.escape(raw) + r"(?![A-Za-z])", rendered), f"{raw} is reserved but no macro renders it"


def test_a_planted_raw_symbol_is_found_in_text_outputs_and_plot_labels(tmp_path):
    path = page(tmp_path, [
        markdown(r"The parent $\lambda(i)$ and the multipliers $\mult$; $\Lambdaish$ is no command."),
        markdown(r"The pin's impulse $\hat\multlt$, the derivative $\partial\tau$, the exponent $\chi$."),
        code('display(Markdown(r"$\\Lambda_k^{-1}$"))',
             outputs=[{"output_type": "display_data", "data": {"text/markdown": r"$\Lambda_k^{-1}$"}, "metadata": {}}]),
        code('ax.set_ylabel(r"$\\mu$ of body $i$")'),
        code('ax.set_ylabel(r"$\\zeta$, an eigenvalue")'),        # a plot label may show the rendered letter
    ])
    found = notation.violations(path)
    assert [(place, symbol) for place, symbol, _ in found] == [
        ("cell 0", r"\lambda"), ("cell 0", r"\Lambdaish"), ("cell 1", r"\multlt"),
        ("cell 2 output", r"\Lambda"), ("cell 3 code", r"\mu")]


def test_the_notation_pages_map_of_the_notes_may_quote_their_symbols(tmp_path):
    path = tmp_path / "notation.md"
    path.write_text("The parent $\\pa(i)$.\n\n(notation-map)=\n## The notes\n\nKim's parent $\\lambda(i)$.\n")
    assert notation.violations(path) == []
    path.write_text("The parent $\\lambda(i)$.\n\n(notation-map)=\n")
    assert len(notation.violations(path)) == 1


@pytest.mark.parametrize("path", notation.pages(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_page_writes_a_reserved_symbol_outside_its_macro(path):
    found = notation.violations(path)
    assert not found, (f"{path.name} writes {len(found)} reserved symbols raw, e.g. {found[0][0]}: "
                       f"{found[0][1]}; write {found[0][2]}" if found else "")
