"""Stored notebooks: run once top to bottom, no stored errors or stderr, every chapter in the book.

nbval (run by `make test`) re-executes them and compares outputs; these checks catch what a
book build with execution off cannot see.
"""

import json
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import portable_outputs as po  # noqa: E402

NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb")) + sorted((ROOT / "exercises").glob("*.ipynb"))
NOTEBOOKS += sorted((ROOT / "book").glob("*.ipynb"))


def code_cells(path):
    return [c for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_was_run_once_top_to_bottom(path):
    counts = [c.get("execution_count") for c in code_cells(path)]
    assert counts == list(range(1, len(counts) + 1)), f"{path.name}: execution counts {counts}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_stores_no_errors_or_stderr(path):
    for cell in code_cells(path):
        tags = cell.get("metadata", {}).get("tags", [])
        for out in cell.get("outputs", []):
            if out["output_type"] == "error":
                assert "raises-exception" in tags, f"{path.name}: stored error {out.get('ename')}"
            if out["output_type"] == "stream" and out["name"] == "stderr":
                text = "".join(out["text"])
                raise AssertionError(f"{path.name}: stored stderr: {text[:200]}")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_in_the_table_of_contents(path):
    toc = (ROOT / "_toc.yml").read_text()
    entry = str(path.relative_to(ROOT).with_suffix(""))
    assert re.search(rf"file:\s*{re.escape(entry)}\s*$", toc, re.M), f"{entry} is missing from _toc.yml"


@pytest.mark.parametrize("path", sorted((ROOT / "chapters").glob("*.ipynb")), ids=lambda p: p.name)
def test_chapter_has_objectives_checks_summary_and_figure(path):
    cells = json.loads(path.read_text())["cells"]
    markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown").lower()
    for part in ("learning objectives", "check it", "summary", "exercises"):
        assert part in markdown, f"{path.name}: no '{part}' section"
    captions = [c for c in cells if c.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("caption")]
    assert captions, f"{path.name}: no captioned figure"
    assert "import dynlib" in "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def test_every_toc_entry_exists():
    toc = (ROOT / "_toc.yml").read_text()
    for entry in re.findall(r"file:\s*(\S+)", toc):
        candidates = [ROOT / f"{entry}{ext}" for ext in (".md", ".ipynb")]
        assert any(c.exists() for c in candidates), f"_toc.yml lists {entry}, which does not exist"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_outputs_hold_no_machine_paths(path):
    """Tracebacks and reprs can leak where the notebook ran; stored outputs must not."""
    pattern = re.compile(r"/(?:home|root|tmp|work|Users)/[A-Za-z]")
    for cell in code_cells(path):
        for out in cell.get("outputs", []):
            text = json.dumps(out)
            assert not pattern.search(text), f"{path.name}: an output holds a machine path: {pattern.search(text)[0]}"


def equation_labels():
    """Every equation label of the book: ``$$ (label)`` after a display and ``{math}`` ``:label:``."""
    labels = set()
    for path in NOTEBOOKS + sorted((ROOT / "book").glob("*.md")):
        text = path.read_text()
        labels |= set(re.findall(r"\$\$\s*\(([A-Za-z0-9_-]+)\)", text.replace("\\n", "\n")))
        labels |= set(re.findall(r":label:\s*([A-Za-z0-9_-]+)", text.replace("\\n", "\n")))
    return labels


LABELS = equation_labels()


def printed_text(cell):
    """What a code cell shows the reader: the output text nbval compares (tools/portable_outputs.py)."""
    return "\n".join(po.compared_texts(cell))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_outputs_name_equations_as_the_reader_sees_them(path):
    """A check's printed line is read on the page, where an equation has a number, never its label."""
    for cell in code_cells(path):
        text = printed_text(cell)
        named = sorted(label for label in LABELS if re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])", text))
        assert not named, f"{path.name}: an output names the equation label(s) {named}: say what the equation is"


def test_the_label_guard_knows_the_book_labels_and_finds_a_planted_one():
    assert {"eq-con-kkt", "eq-motion-slider", "eq-abi-two-link-closed"} <= LABELS
    planted = {"outputs": [{"output_type": "stream", "name": "stdout", "text": ["solve eq-con-kkt; done\n"]}]}
    assert re.search(r"(?<![\w-])eq-con-kkt(?![\w-])", printed_text(planted))
