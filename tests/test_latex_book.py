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
    """Every numbered part is a "Part N: ..." or continues one (no caption, right after a part that has one)."""
    parts = latex_book.parts_of(yaml.safe_load((ROOT / "_toc.yml").read_text()))
    numbered = [k for k, (_, is_numbered, _) in enumerate(parts) if is_numbered]
    assert numbered
    for k in numbered:
        caption = parts[k][0] or (parts[k - 1][0] if k > 0 else "")
        assert latex_book.NUMBERED_PART.match(caption), f"numbered part {k} has no 'Part N:' caption: {parts[k]}"


def test_a_part_may_open_with_an_unnumbered_page_and_continue_numbered():
    """A recap at the start of Part II: an unnumbered part with the part's caption, then a part without a
    caption whose chapters are numbered. The PDF prints one \\part heading, the recap as an unnumbered
    chapter, and the chapters numbered on."""
    toc = {"parts": [
        {"caption": "Start here", "chapters": [{"file": "book/notation"}]},
        {"caption": "Part I: Screws", "numbered": 2, "chapters": [{"file": "chapters/01_screws"}]},
        {"caption": "Part II: Trees", "chapters": [{"file": "book/recap"}]},
        {"numbered": 2, "chapters": [{"file": "chapters/05"}, {"file": "chapters/06"}]},
        {"caption": "Reference", "chapters": [{"file": "book/errata"}]},
    ]}
    tex = "\n".join([
        chapter("Notation", "book/notation"),
        chapter("Screws", "chapters/01_screws"),
        chapter("Recap", "book/recap"), "\\section{Twists}",
        chapter("Inverse dynamics", "chapters/05"), "\\section{Passes}",
        chapter("Articulated inertia", "chapters/06"),
        chapter("Errata", "book/errata"),
    ])
    out = latex_book.book_structure(tex, latex_book.parts_of(toc)).split("\n")
    heads = [line for line in out if line.startswith(("\\chapter", "\\part"))]
    assert heads[1:3] == ["\\part{Screws}", "\\chapter{Screws}"]
    assert heads[3] == "\\part{Trees}"                                # the caption's part, numbered
    assert heads[4].startswith("\\chapter*{Recap}\\addcontentsline{toc}{chapter}{Recap}")
    assert heads[5:7] == ["\\chapter{Inverse dynamics}", "\\chapter{Articulated inertia}"]  # no empty part
    assert heads[7] == "\\part*{Reference}\\addcontentsline{toc}{part}{Reference}"
    assert "\\section*{Twists}" in out and "\\section{Passes}" in out


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


def test_the_landing_page_is_the_preface_and_the_contents_are_called_contents():
    tex = "\n".join([
        "\\addto\\captionsenglish{\\renewcommand{\\contentsname}{Start here}}",
        "\\sphinxtableofcontents",
        "\\phantomsection\\label{\\detokenize{book/index::doc}}",
        "An executable course.",
        chapter("What the course covers", "book/index"), "\\section{Topics}",
        chapter("The chapters", "book/index"),
        chapter("Notation", "book/notation"), "\\section{Frames}",
        chapter("Screws", "chapters/01_screws"),
    ])
    out = latex_book.book_structure(tex, latex_book.parts_of(TOC), "book/index").split("\n")
    assert out[0] == "\\addto\\captionsenglish{\\renewcommand{\\contentsname}{Contents}}"
    preface = out.index("\\chapter*{Preface}\\addcontentsline{toc}{chapter}{Preface}\\markboth{Preface}{Preface}")
    assert out[preface - 1].endswith("{book/index::doc}}") and out[preface + 1] == "An executable course."
    assert "\\section*{What the course covers}" in out and "\\subsection*{Topics}" in out
    assert "\\section*{The chapters}" in out
    assert not any(line.startswith("\\chapter{What") or line.startswith("\\chapter*{What") for line in out)
    assert any(line.startswith("\\chapter*{Notation}") for line in out) and "\\section*{Frames}" in out
    assert "\\chapter{Screws}" in out


def test_code_blocks_get_a_font_small_enough_for_their_longest_line():
    assert latex_book.code_font_size("x = 1\n" + "y" * 90) == 8.0                 # 8 pt holds 94 columns
    assert latex_book.code_font_size("y" * 100) == 7.5
    assert latex_book.code_font_size("y" * 110) == 6.5
    assert latex_book.code_font_size("y" * 120) == 6.0
    assert latex_book.code_font_size("y" * 200) == latex_book.SMALLEST_CODE_PT   # broken, and reported
    assert latex_book.code_font_size("y" * 94, width=400) < 8.0                   # inside a box, less room
    section = nodes.section()
    section += nodes.literal_block("short", "short")
    section += nodes.literal_block("y" * 100, "y" * 100)
    latex_book.fit_code_to_page(section)
    kinds = [type(child).__name__ for child in section.children]
    assert kinds == ["literal_block", "raw", "literal_block", "raw"]
    assert "fontsize=\\fontsize{7.5}{9}" in section.children[1].astext()
    assert section.children[3].astext() == "\\endgroup\n"
    box = nodes.note()
    box += nodes.doctest_block(">>> " + "x" * 92, ">>> " + "x" * 92)               # fits the page, not the box
    latex_book.fit_code_to_page(box)
    assert type(box.children[0]).__name__ == "raw"


class exercise_enumerable_node(nodes.Admonition, nodes.Element):
    """Stands for sphinx-exercise's node of the same name (the extension matches by name)."""


class solution_node(nodes.Admonition, nodes.Element):
    """Stands for sphinx-exercise's node of the same name."""


def test_solutions_move_to_the_end_of_an_exercise_page_and_checks_are_left_out():
    page = nodes.section()
    page += nodes.title("", "Exercises")
    for k in (1, 2):
        page += exercise_enumerable_node("", nodes.paragraph("", f"statement {k}"))
        page += cell([], "cell_input")                                    # setup: kept
        solution = solution_node("", nodes.paragraph("", f"answer {k}"))
        solution += cell([], "cell_input")                                # the solution's code moves with it
        page += solution
        page += cell([], "cell_input", "cell_output")                     # the check: left out
        page += cell([], "cell_input")
    latex_book.solutions_at_the_end(page)
    kinds = [type(child).__name__ for child in page.children]
    assert kinds == ["title", "exercise_enumerable_node", "container", "exercise_enumerable_node", "container",
                     "section"]
    solutions = page.children[-1]
    assert solutions[0].astext() == "Solutions"
    moved = [s for s in solutions.children if type(s).__name__ == "solution_node"]
    assert [s[0].astext() for s in moved] == ["answer 1", "answer 2"] and all(len(s) == 2 for s in moved)


def test_long_lines_of_text_outputs_wrap_at_spaces_to_the_page():
    check = "holds: " + "every split within 30 cond(H) eps of aba, " * 4
    text = "\n".join(["[1. 2. 3.]", check, "x" * 120])
    wrapped = latex_book.wrapped_output(text).split("\n")
    assert wrapped[0] == "[1. 2. 3.]" and wrapped[-1] == "x" * 120       # short lines and unbreakable ones stay
    assert all(len(line) <= 94 for line in wrapped[1:-1]) and len(wrapped) == 4
    assert wrapped[2].startswith("    ") and " ".join(" ".join(wrapped[1:-1]).split()) == " ".join(check.split())
    output = nodes.literal_block(text, text, classes=["output", "stream"])
    listing = nodes.literal_block("y = " + "1 + " * 40, "y = " + "1 + " * 40)
    section = nodes.section("", output, listing)
    latex_book.wrap_text_outputs(section)
    assert output.astext() == "\n".join(wrapped) and listing.astext() == "y = " + "1 + " * 40   # code is not rewrapped
