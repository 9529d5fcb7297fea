"""The browser check finds what a reader would see broken (it needs Debian's chromium)."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="make installs chromium first")

BROKEN = """<html><head><script src="https://cdn.example.com/x.js"></script></head><body>
<div class="math">\\[ x^2 \\]</div><img src="missing.png">
<a href="https://mybinder.org/v2/gh/o/r/main?urlpath=tree/chapters/other.ipynb">launch</a>
<a href="https://mybinder.org">Binder, a link in the prose</a>
<script>console.error("boom"); undefinedFunction();</script></body></html>"""


@pytest.fixture(scope="module")
def check_pages():
    spec = importlib.util.spec_from_file_location("check_pages", ROOT / "tools" / "check_pages.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_pages"] = module
    spec.loader.exec_module(module)
    return module


def test_a_broken_page_is_reported_on_every_count(tmp_path, check_pages):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "index.html").write_text('<meta http-equiv="Refresh" content="0; url=chapters/bad.html" />')
    (tmp_path / "chapters" / "bad.html").write_text(BROKEN)
    (tmp_path / "search.html").write_text('<div id="search-results"></div>')
    failures, offsite = check_pages.check_book(tmp_path, tmp_path)
    found = "\n".join(failures["chapters/bad.html"])
    for problem in ("console error: boom", "page error: undefinedFunction", "HTTP 404", "math not typeset",
                    "image did not load", "no .ipynb download link", "a Binder button opens another notebook"):
        assert problem in found
    assert found.count("a Binder button") == 1  # the launch button; a link to mybinder.org in the prose is fine
    assert failures["search.html"] == ["searching for 'articulated' found nothing"]
    assert offsite == ["https://cdn.example.com/x.js"]
    assert (tmp_path / "chapters__bad.jpg").exists()
    assert list(failures) == ["chapters/bad.html", "search.html"]  # the redirect page is not visited


def test_a_binder_button_must_open_its_own_page(check_pages):
    page = "exercises/05_inverse_dynamics_exercises.html"
    right = "https://mybinder.org/v2/gh/o/r/main?urlpath=tree/exercises/05_inverse_dynamics_exercises.ipynb"
    assert check_pages.binder_problems(page, [right]) == []
    assert check_pages.binder_problems(page, [right.replace("05_", "06_")])
