"""A chapter shows its reader at most LIMIT lines of code: plotting and checks fold away."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import visible_code  # noqa: E402

CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
PAGES = CHAPTERS + sorted((ROOT / "book").glob("*.ipynb")) + sorted((ROOT / "exercises").glob("*.ipynb"))


def notebook(tmp_path, cells):
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def code(source, tags=(), outputs=()):
    return {"cell_type": "code", "source": source, "metadata": {"tags": list(tags)}, "outputs": list(outputs)}


def listing(lines):
    text = "```python\n" + "\n".join(lines) + "\n```"
    return {"output_type": "display_data", "data": {"text/markdown": text}, "metadata": {}}


def test_the_counter_skips_folded_input_and_blank_lines_and_counts_listings(tmp_path):
    path = notebook(tmp_path, [
        code("a = 1\n\nb = 2\n"),                                     # 2 lines
        code("plt.plot(x)\nplt.show()\n", tags=["hide-input"]),        # folded: 0
        code("assert a == 1\n", tags=["remove-cell"]),                 # removed: 0
        code("dl.show_source(f)\n", outputs=[listing(["def f(x):", "", "    return x"])]),  # 1 + 2
        code("dl.show_source(g)\n", tags=["hide-output"], outputs=[listing(["def g(): pass"])]),  # 1 + 0
        {"cell_type": "markdown", "source": "```python\nnot code a reader runs\n```", "metadata": {}},
    ])
    assert visible_code.visible_code(path) == [(0, 2, 0), (3, 1, 2), (4, 1, 0)]
    assert visible_code.total(path) == 6


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_a_chapter_shows_at_most_the_limit_of_code(path):
    seen = visible_code.visible_code(path)
    count = sum(shown + listed for _, shown, listed in seen)
    largest = sorted(seen, key=lambda c: -(c[1] + c[2]))[:5]
    assert count <= visible_code.LIMIT, (
        f"{path.name} shows {count} lines of code, more than {visible_code.LIMIT}: fold plotting and check cells "
        f"away with the hide-input tag (largest visible cells as (index, input, listing): {largest})")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_visible_line_of_code_fits_a_printed_page(path):
    wide = visible_code.too_wide(path)
    assert not wide, (f"{path.name}: {len(wide)} visible lines of code are wider than {visible_code.WIDTH} "
                      f"characters, e.g. cell {wide[0][0]}: {wide[0][1]!r}" if wide else "")


def test_a_name_only_a_folded_cell_defines_is_found(tmp_path):
    path = notebook(tmp_path, [
        code("import numpy as np\nchain = 1\n"),
        code("arm = 2\ndef f(chain):\n    return chain\n", tags=["hide-input"]),
        code("print(chain, np.pi, [k for k in range(3)])\n"),          # chain was shown before: fine
        code("print(arm + f(0))\n"),                                   # arm and f: only folded
        code("arm = 3\nprint(arm)\n"),                                # defined where it is read
        code("print(arm)\n"),                                          # shown since: fine
    ])
    assert visible_code.names_from_folded_cells(path) == [(3, ["arm", "f"])]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_no_visible_cell_reads_a_name_only_a_folded_cell_defines(path):
    found = visible_code.names_from_folded_cells(path)
    assert not found, (f"{path.name}: visible cells read names that only folded cells define (a reader of "
                       f"the printed page never sees them): {found}; show the definition or fold the reader")


def test_a_check_that_shows_nothing_is_found(tmp_path):
    printed = {"output_type": "stream", "name": "stdout", "text": "held on 10 cases\n"}
    path = notebook(tmp_path, [
        code("assert 1 == 1\nprint('held on 10 cases')\n", tags=["hide-input"], outputs=[printed]),
        code("assert 1 == 1\n", tags=["hide-input"]),
        code("assert 1 == 1\n"),                                        # visible: its code is what it shows
    ])
    assert visible_code.silent_checks(path) == [1]


@pytest.mark.parametrize("path", CHAPTERS + sorted((ROOT / "book").glob("*.ipynb")), ids=lambda p: p.stem)
def test_every_folded_check_says_what_held(path):
    silent = visible_code.silent_checks(path)
    assert not silent, (f"{path.name}: folded cells {silent} assert without printing what held (the reader "
                        "sees an empty toggle): print one line with what was verified and the bound it met")
