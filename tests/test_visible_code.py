"""A chapter shows its reader at most LIMIT lines of code: plotting and checks fold away."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import visible_code  # noqa: E402

CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))


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
