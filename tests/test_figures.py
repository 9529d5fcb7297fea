"""The stored figures are made for the page: they fit it at their natural size, in the book's style,
with text no smaller than 9 pt and short captions in rendered math."""

import ast
import base64
import json
import re
import struct
from pathlib import Path

import pytest

from dynlib.course.plotting import FIGURE_WIDTH, SMALLEST_TEXT_PT

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(ROOT.glob("chapters/*.ipynb")) + sorted(ROOT.glob("exercises/*.ipynb")) + \
    sorted(ROOT.glob("book/*.ipynb"))
DPI = 100
WIDEST_PX = int(FIGURE_WIDTH * DPI) + 20   # the tight bounding box may add a little
CAPTION_WORDS = 55

# ASCII stand-ins for math that the page should typeset: I^A_i, (I^A_i)^-1, lambda_min, thetadot1, Psi
ASCII_MATH = re.compile(r"\^|(?<![.\w])[A-Za-z]+_[A-Za-z0-9{]+|\b(?:theta|omega|lambda|Lambda|Psi|psi|Phi|phi|tau|"
                        r"alpha|mu|epsilon|sigma|rho|kappa|nu|xi|Gamma|Delta|delta)(?:dot|ddot)?\d*\b")
SMALL_TEXT = re.compile(r"(?:fontsize|labelsize|titlesize)\s*=\s*|[\"']size[\"']\s*:\s*")
SMALL_VALUE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\b|[\"'](?:x-small|xx-small|small|smaller)[\"']")
FIGSIZE = re.compile(r"figsize\s*=\s*\(\s*([0-9.]+)\s*,")
TEXT_CALLS = {"set_title", "set_xlabel", "set_ylabel", "set_zlabel", "suptitle", "text", "annotate", "table"}


def cells():
    for path in NOTEBOOKS:
        for index, cell in enumerate(json.loads(path.read_text())["cells"]):
            yield path, index, cell


def figure_cells():
    """``(notebook, cell index, cell, is_animation)`` of every code cell whose output is a figure."""
    for path, index, cell in cells():
        outputs = cell.get("outputs", []) if cell["cell_type"] == "code" else []
        if any("image/png" in out.get("data", {}) for out in outputs):
            animation = any("_anim_img" in "".join(out.get("data", {}).get("text/html", "")) for out in outputs)
            yield path, index, cell, animation


def png_size(data):
    """Width and height (px) and the resolution in dots per inch (None if the file does not say) of a PNG."""
    width, height = struct.unpack(">II", data[16:24])
    phys = data.find(b"pHYs")
    dpi = None
    if phys > 0:
        x_per_metre, _, unit = struct.unpack(">IIB", data[phys + 4:phys + 13])
        dpi = round(x_per_metre * 0.0254) if unit == 1 else None
    return width, height, dpi


def without_math_and_code(text):
    return re.sub(r"\$[^$]*\$|`[^`]*`", " ", text)


def test_every_figure_fits_the_text_column_at_100_dpi():
    too_wide = []
    for path, index, cell, _ in figure_cells():
        for out in cell["outputs"]:
            if "image/png" in out.get("data", {}):
                width, _, dpi = png_size(base64.b64decode(out["data"]["image/png"]))
                if width > WIDEST_PX or dpi not in (None, DPI):
                    too_wide.append((path.name, index, width, dpi))
    assert not too_wide, f"figures wider than {WIDEST_PX} px or not at {DPI} dpi: {too_wide}"


def test_figure_code_asks_for_no_small_text_and_no_wide_figure():
    found = []
    for path, index, cell in cells():
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        for match in SMALL_TEXT.finditer(source):
            value = SMALL_VALUE.match(source, match.end())
            if value and (value.group(1) is None or float(value.group(1)) < SMALLEST_TEXT_PT):
                found.append((path.name, index, source[match.start():value.end()]))
        for match in FIGSIZE.finditer(source):
            if float(match.group(1)) > FIGURE_WIDTH:
                found.append((path.name, index, match.group(0)))
    assert not found, f"text below {SMALLEST_TEXT_PT} pt or figures wider than {FIGURE_WIDTH} in: {found}"


def test_pages_with_figures_turn_on_the_book_style_before_the_first():
    missing = []
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text())
        figures = [k for p, k, _, _ in figure_cells() if p == path]
        if not figures:
            continue
        before = "".join("".join(cell["source"]) for cell in nb["cells"][:figures[0]] if cell["cell_type"] == "code")
        if "use_book_style()" not in before:
            missing.append(path.name)
    assert not missing, f"pages that draw figures without dp.use_book_style() first: {missing}"


def test_every_figure_and_animation_has_a_short_caption_in_rendered_math():
    problems = []
    for path, index, cell, _ in figure_cells():
        figure = cell["metadata"].get("mystnb", {}).get("figure", {})
        caption = figure.get("caption", "")
        if path.parent.name == "exercises" and not caption:
            continue  # an exercise's own plot is part of its answer
        if not caption or not figure.get("name"):
            problems.append((path.name, index, "no caption or name"))
            continue
        if len(caption.split()) > CAPTION_WORDS:
            problems.append((path.name, index, f"{len(caption.split())} words"))
        ascii_math = ASCII_MATH.findall(without_math_and_code(caption))
        if ascii_math:
            problems.append((path.name, index, f"math in ASCII: {ascii_math}"))
    assert not problems, f"captions to fix (at most {CAPTION_WORDS} words, math in $...$): {problems}"


def strings_drawn_as_text(source):
    """The string constants a cell passes to matplotlib's text calls (titles, labels, annotations, legend labels)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []

    def constants(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.JoinedStr):
            return ["".join(v.value for v in node.values if isinstance(v, ast.Constant))]
        return []

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in TEXT_CALLS:
                for argument in node.args:
                    found += constants(argument)
            found += [text for keyword in node.keywords if keyword.arg in ("label", "title")
                      for text in constants(keyword.value)]
    return found


def test_titles_labels_and_legends_write_math_as_math():
    problems = []
    for path, index, cell, _ in figure_cells():
        for text in strings_drawn_as_text("".join(cell["source"])):
            ascii_math = ASCII_MATH.findall(without_math_and_code(text))
            if ascii_math:
                problems.append((path.name, index, text, ascii_math))
    assert not problems, f"figure text with math in ASCII (write it as $...$ for mathtext): {problems}"


@pytest.mark.parametrize("text, flagged", [
    ("the articulated inertia I^A_i of body i", True),
    ("(I^A_i)^-1 (f_i - p^A_i)", True),
    ("lambda_min of H", True),
    ("thetadot1 against time", True),
    ("eigenvalues of 1 + Psi I", True),
    ("the articulated inertia $\\mathbf I^A_i$ of body $i$", False),
    ("time (s) against `dl.rnea`", False),
])
def test_the_ascii_math_pattern_finds_what_the_pages_showed(text, flagged):
    assert bool(ASCII_MATH.findall(without_math_and_code(text))) is flagged
