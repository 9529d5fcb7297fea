"""The PDF's structure: parts, unnumbered front and back matter, folded cells left out."""

import sys
from pathlib import Path

import yaml
from docutils import nodes

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "extensions"))

import latex_book  # noqa: E402


def chapter(title, doc):
    return f"\\chapter{{{title}}}\n\\label{{\\detokenize{{{doc}:anchor}}}}\\label{{\\detokenize{{{doc}::doc}}}}\ntext"


TOC = {"parts": [
    {"caption": "Start here", "chapters": [{"file": "book/notation"}]},
    {"caption": "Part I: Screws", "numbered": 2, "chapters": [{"file": "chapters/01_screws"}, {"file": "chapters/02"}]},
    {"caption": "Reference", "chapters": [{"file": "book/errata"}]},
]}


def test_front_and_back_matter_are_unnumbered_and_numbered_parts_open_with_a_part():
    tex = "\n".join([
        chapter("What the course covers", "book/index"), "\\section{Who}",
        chapter("Notation", "book/notation"), "\\section{Frames}", "\\subsection{Axes}",
        chapter("Screws", "chapters/01_screws"), "\\section{Lines}",
        chapter("Motion", "chapters/02"),
        chapter("Errata", "book/errata"), "\\section{Note 000}",
    ])
    out = latex_book.book_structure(tex, latex_book.parts_of(TOC)).split("\n")
    chapters = [line for line in out if line.startswith(("\\chapter", "\\part"))]
    assert chapters[0].startswith("\\chapter*{What the course covers}\\addcontentsline{toc}{chapter}")
    assert chapters[1].startswith("\\chapter*{Notation}")            # the first part has no heading
    assert chapters[2:5] == ["\\part{Screws}", "\\chapter{Screws}", "\\chapter{Motion}"]
    assert chapters[5] == "\\part*{Reference}\\addcontentsline{toc}{part}{Reference}"
    assert chapters[6].startswith("\\chapter*{Errata}")
    assert "\\section*{Who}" in out and "\\subsection*{Axes}" in out and "\\section*{Note 000}" in out
    assert "\\section{Lines}" in out                                 # numbered chapters keep numbered sections


def test_the_parts_of_the_books_toc_are_read():
    parts = latex_book.parts_of(yaml.safe_load((ROOT / "_toc.yml").read_text()))
    numbered = [caption for caption, is_numbered, _ in parts if is_numbered]
    assert numbered and all(latex_book.NUMBERED_PART.match(caption) for caption in numbered)


def cell(tags, *parts):
    container = nodes.container(classes=["cell"] + [f"tag_{t}" for t in tags])
    for part in parts:
        container += nodes.container(classes=[part], ids=[part])
    return container


def test_folded_inputs_outputs_and_cells_are_left_out_of_print():
    doctree = nodes.section()
    doctree += cell([], "cell_input", "cell_output")
    doctree += cell(["hide-input"], "cell_input", "cell_output")
    doctree += cell(["hide-output", "nbval-ignore-output"], "cell_input", "cell_output")
    doctree += cell(["hide-cell"], "cell_input", "cell_output")
    latex_book.leave_out_folded(doctree)
    kept = [[child["classes"][0] for child in c.children] for c in doctree.children]
    assert kept == [["cell_input", "cell_output"], ["cell_output"], ["cell_input"], []]


def test_figure_captions_hold_no_cross_reference_roles():
    """A citation or reference inside a caption becomes a fragile \\hyperlink in LaTeX's moving
    argument and stops the PDF (TeX capacity exceeded): captions say it in words."""
    import json

    root = Path(__file__).resolve().parents[1]
    found = []
    for path in sorted(root.glob("chapters/*.ipynb")) + sorted(root.glob("exercises/*.ipynb")) + \
            sorted(root.glob("book/*.ipynb")):
        for index, cell in enumerate(json.loads(path.read_text())["cells"]):
            caption = cell["metadata"].get("mystnb", {}).get("figure", {}).get("caption", "")
            if any(role in caption for role in ("{cite", "{eq}", "{numref}", "{ref}", "{doc}")):
                found.append((path.name, index))
    assert not found, f"captions with cross-reference roles: {found}"
