"""The browser check finds what a reader would see broken (it needs Debian's chromium)."""

import importlib.util
import shutil
import sys
import sysconfig
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
    assert (tmp_path / "desktop" / "chapters__bad.jpg").exists() and (tmp_path / "phone" / "chapters__bad.jpg").exists()
    assert not any("screenshot" in p for p in failures["chapters/bad.html"])
    assert list(failures) == ["chapters/bad.html", "search.html"]  # the redirect page is not visited


def test_a_binder_button_must_open_its_own_page(check_pages):
    page = "exercises/05_inverse_dynamics_exercises.html"
    right = "https://mybinder.org/v2/gh/o/r/main?urlpath=tree/exercises/05_inverse_dynamics_exercises.ipynb"
    assert check_pages.binder_problems(page, [right]) == []
    assert check_pages.binder_problems(page, [right.replace("05_", "06_")])


MATHJAX = Path(sysconfig.get_paths()["purelib"]) / "sphinx-mathjax-offline" / "static" / "mathjax"
# what a built page loads in its head: MathJax, and the book's screen style (book/extensions/screen_style)
HEAD = """<script>MathJax = {"options": {"processHtmlClass": "math"}}</script>
<script defer src="../mathjax/tex-chtml.js"></script>
<link rel="stylesheet" href="../book.css"><script src="../narrow_screen.js"></script>"""

# What the issue that led to these checks saw on the built pages: an equation with a TeX error, a
# command MathJax does not know (shown in red), an equation and a table wider than the text column
# (each behind its own scrollbar), a figure wider than a phone, an equation that a phone cannot show
# even set smaller.  A wide code block may scroll.
WIDE = """<html><head>{head}</head>
<body style="margin: 0"><article style="width: 700px; max-width: 100%">
<p>Fine: <span class="math notranslate nohighlight">\\(x^2\\)</span>.</p>
<div class="math notranslate nohighlight" id="equation-eq-broken"><span class="eqno">(5.1)</span>\\[\\left( x \\]</div>
<p>Unknown: <span class="math notranslate nohighlight">\\(\\Iarticulated_i\\)</span>.</p>
<div class="math notranslate nohighlight" id="equation-eq-wide" style="overflow-x: auto">
<span class="eqno">(5.9)</span>\\[ {long} \\]</div>
<div class="math notranslate nohighlight" id="equation-eq-pairs" style="display: flex; flex-direction: row-reverse">
<span class="eqno">(5.10)</span>\\[ {pairs} \\]</div>
<div class="pst-scrollable-table-container" style="overflow-x: auto"><table><tr>{cells}</tr></table></div>
<p>A sum in a sentence, <span class="math notranslate nohighlight">\\({sentence}\\)</span>, and a fraction that
cannot break, <span class="math notranslate nohighlight">\\(\\frac{{fraction}}{2}\\)</span>.</p>
<div style="overflow-x: auto"><div style="width: 600px">a box as wide as a desktop column</div></div>
<div style="overflow: hidden"><span style="display: inline-block; width: 600px">a link that a box hides</span></div>
<div class="highlight"><pre style="overflow-x: auto">{code}</pre></div>
<img src="data:image/gif;base64,{gif}" style="width: 600px; height: 10px">
<a href="x.ipynb">download</a>
</article></body></html>""".replace("{long}", " + ".join(f"a_{{{k}}} b_{{{k}}}" for k in range(40))).replace(
    "{sentence}", " + ".join(f"x_{{{k}}}" for k in range(12))).replace(
    "{fraction}", " + ".join(f"y_{{{k}}}" for k in range(30))).replace(
    "{pairs}", ",\\qquad ".join(f"a_{k} + b_{k} = c_{k}" for k in range(3))).replace(
    "{cells}", "".join(f"<td>column{k}</td>" for k in range(40))).replace("{code}", "x = 1  # " + "wide " * 60).replace(
    "{gif}", "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")


def a_book(folder, name, html, screen_style=False):
    """A built book in folder: one chapter page (its notebook beside it, x.ipynb), a home page and a
    search that finds something; with screen_style, the page's HEAD files are there too."""
    if screen_style:
        if not MATHJAX.exists():
            pytest.skip("sphinx-mathjax-offline is installed by requirements.txt")
        shutil.copytree(MATHJAX, folder / "mathjax")
        for style in ("book.css", "narrow_screen.js"):
            shutil.copy(ROOT / "book" / "extensions" / "screen_style" / "static" / style, folder)
    (folder / "chapters").mkdir()
    (folder / "chapters" / name).write_text(html.replace("{head}", HEAD))
    (folder / "chapters" / "x.ipynb").write_text("{}")
    (folder / "index.html").write_text("<p>home</p>")
    (folder / "search.html").write_text('<div id="search-results"><ul><li>hit</li></ul></div>')


def test_math_errors_and_what_is_wider_than_the_page_are_reported(tmp_path, check_pages):
    a_book(tmp_path, "wide.html", WIDE, screen_style=True)
    failures, _ = check_pages.check_book(tmp_path, tmp_path / "shots")
    found = failures["chapters/wide.html"]
    assert any(p.startswith("MathJax error: Extra \\left or missing \\right") for p in found), found
    assert any(p.startswith("undefined TeX command in an equation: \\Iarticulated") for p in found), found
    assert any(p.startswith("equation (5.9)") and "horizontal scrollbar" in p for p in found), found
    assert any(p.startswith('table "column0') and "horizontal scrollbar" in p for p in found), found
    assert any(p.startswith("at phone width: the page is") for p in found), found  # the figure and the fraction
    # on a phone the long sum stays too wide even when set smaller; three equations side by side
    # (5.10), which fit a desktop, fit a phone once they are set one under another
    assert any(p.startswith("at phone width: equation (5.9)") and "does not fit even at 64 %" in p
               for p in found), found
    assert not any("(5.10)" in p for p in found), found
    # the sum in the sentence breaks between its terms; the fraction cannot, and runs off its line
    assert [p for p in found if "past the end of its line" in p] == [
        found_p for found_p in found if found_p.startswith('at phone width: the formula "\\frac{y_{0}')], found
    assert len([p for p in found if "past the end of its line" in p]) == 1, found
    # the box as wide as a desktop column scrolls on a phone without saying so; the table says so
    assert any(p.startswith('at phone width: div "a box as wide') and "without saying so" in p for p in found), found
    assert not any("column0" in p and "without saying so" in p for p in found), found
    # a box that hides its overflow cuts off what is wider than the phone
    assert any(p.startswith('at phone width: span "a link that a box hides" is cut off at the right edge')
               for p in found), found
    assert not any("wide wide" in p or "pre" in p for p in found), found   # the code block may scroll
    assert "index.html" not in failures
    assert len(found) == 9, found


def test_a_page_taller_than_a_jpeg_is_shot_in_parts(tmp_path, check_pages):
    a_book(tmp_path, "long.html", '<html><body><a href="x.ipynb">download</a>'
           '<div style="height: 70000px; background: linear-gradient(red, blue)"></div></body></html>')
    (tmp_path / "shots" / "phone").mkdir(parents=True)
    (tmp_path / "shots" / "phone" / "chapters__long.jpg").write_bytes(b"")  # from a build when it was short
    failures, _ = check_pages.check_book(tmp_path, tmp_path / "shots")
    assert failures == {}, failures
    assert not (tmp_path / "shots" / "phone" / "chapters__long.jpg").exists()
    for width in ("desktop", "phone"):
        parts = sorted((tmp_path / "shots" / width).glob("chapters__long-*.jpg"))
        assert [p.name for p in parts] == [f"chapters__long-{k}.jpg" for k in (1, 2, 3)]
        assert all(p.stat().st_size > 0 for p in parts)


def test_a_page_left_wider_by_the_phone_width_is_reported_at_desktop_width_again(tmp_path, check_pages):
    a_book(tmp_path, "turned.html",
           '<html><body><a href="x.ipynb">download</a><article>'
           '<div style="overflow-x: auto" class="scrolls-sideways">'
           '<div id="box">a box the phone width left wide</div></div>'
           '<script>addEventListener("resize", () => { if (innerWidth < 600) box.style.width = "2000px"; });</script>'
           '</article></body></html>')
    failures, _ = check_pages.check_book(tmp_path, tmp_path / "shots")
    [problem] = failures.pop("chapters/turned.html")
    assert failures == {}, failures
    assert problem.startswith('at desktop width again, after phone width: div.scrolls-sideways "a box the phone '
                              'width left wide" needs a horizontal scrollbar (2000 px in'), problem


# MathJax sizes a formula to the text around it when it typesets the page, and a table's text is smaller
# on a phone: a page loaded on a phone and then widened kept the phone's sizes, and a table that fits
# a fresh desktop page needed a scrollbar.
TABLE = """<html><head>{head}</head>
<body><article><div class="pst-scrollable-table-container"><table class="table"><tr>
<td>body <span class="math notranslate nohighlight">\\(\\mathbf I_i \\Psi_i\\)</span></td></tr></table></div>
</article></body></html>"""


def test_formulas_are_measured_again_when_the_window_crosses_the_phone_width(tmp_path, check_pages):
    from playwright.sync_api import sync_playwright

    a_book(tmp_path, "table.html", TABLE, screen_style=True)
    server, base = check_pages.serve(tmp_path)
    size = "document.querySelector('td mjx-container').style.fontSize"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=check_pages.CHROMIUM, headless=True, args=check_pages.FLAGS)
            fresh, turned = {}, {}
            for first, then in ((check_pages.DESKTOP, check_pages.PHONE), (check_pages.PHONE, check_pages.DESKTOP)):
                page = browser.new_page(viewport=first)
                page.goto(base + "chapters/table.html", wait_until="load")
                page.wait_for_selector("html[data-math-fitted]", state="attached", timeout=20000)
                fresh[first["width"]] = page.evaluate(size)
                assert check_pages.resize(page, then) == []
                turned[then["width"]] = page.evaluate(size)
            browser.close()
    finally:
        server.shutdown()
    assert fresh[390] != fresh[1280], fresh   # the sizes differ, so the test can see a stale one
    assert turned == fresh, (turned, fresh)


# A table as narrow as its words (the theme's tables shrink so on a phone): the screen style lets a
# formula in a sentence break after its commas, and must keep one in a table whole.
TUPLE = """<html><head>{head}{planted}</head>
<body><article><table style="width: 1px"><tr><td>joint twist</td>
<td><span class="math notranslate nohighlight">\\((0, 0, 1)\\)</span></td></tr></table>
<a href="x.ipynb">download</a></article></body></html>"""


@pytest.mark.parametrize("planted", ["", "<style>table mjx-math { white-space: normal !important }</style>"])
def test_a_formula_in_a_table_stays_whole(tmp_path, check_pages, planted):
    a_book(tmp_path, "tuple.html", TUPLE.replace("{planted}", planted), screen_style=True)
    failures, _ = check_pages.check_book(tmp_path, tmp_path / "shots")
    expected = ['at phone width: the formula "(0, 0, 1)" in a table is broken over 3 lines'] if planted else []
    assert failures.get("chapters/tuple.html", []) == expected, failures
