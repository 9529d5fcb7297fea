"""The check of the built book's text finds what a reader would see raw, and nothing else."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("check_rendered", ROOT / "tools" / "check_rendered.py")
check_rendered = importlib.util.module_from_spec(spec)
sys.modules["check_rendered"] = check_rendered
spec.loader.exec_module(check_rendered)

# The defects of the issue that led to this check, as the built HTML had them.
RAW_PAGE = """<html><head><title>$\\mathbf x$</title><script>var tex = "$\\\\frac{a}{b}$";</script></head><body>
<p>A link to a heading with math: (<a href="#e"><span class="std std-ref">Lecture 4’s {}^A\\mathbf I</span></a>).</p>
<p>the recoil term drops out:
$\\mathbf b_i = (\\mathbf 1 + \\tilde\\Psi_i\\mathbf I_i)^{-1}\\bigl(P_i\\bigr)</p>
<ul class="simple"><li><p>\\boldsymbol\\Lambda_i^{-1}\\mathbf p_i$.</p></li></ul>
<p>(gravity as a wrench, not as the base acceleration of the gravity trick {eq}`eq-rnea-trick`)</p>
<p>| body | joint twist | twist |
|—|—|—|
| 1 | (0, 0, 1) | (0, 0, 1) |</p>
<div class="admonition"><p>```{note}</p></div>
<p>the balance (<a class="reference internal" href="#eq-x">(5.3)</a>) of one body</p>
</body></html>"""

# The same characters where they belong: in math, code, outputs and scripts.
CLEAN_PAGE = """<html><head><title>ok</title><script>var tex = "$\\\\frac{a}{b}$ {eq}`x` |---|";</script></head><body>
<p>Inline math <span class="math notranslate nohighlight">\\(\\mathbf b_i = \\frac{1}{2}\\)</span> in a sentence,
a link <a href="#e"><span class="std std-ref">Lecture 4’s spatial inertia</span></a>, a role in code
<code class="docutils literal notranslate"><span class="pre">{eq}`eq-label`</span></code>, a cost | 2 | of |x|.</p>
<div class="math notranslate nohighlight">\\[\\begin{bmatrix} a \\\\ b \\end{bmatrix}\\]</div>
<div class="cell_output docutils container"><div class="output stream highlight-myst-ansi notranslate">
<div class="highlight"><pre><span></span>| body | twist |
|---|---|
$\\mathbf s$ \\frac
</pre></div></div></div>
<img src="data:image/png;base64,iVBORw0KGgo\\mathbf/AAAA">
</body></html>"""


def test_raw_tex_roles_and_tables_in_the_prose_are_found(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "index.html").write_text('<meta http-equiv="Refresh" content="0; url=chapters/raw.html" />')
    (tmp_path / "chapters" / "raw.html").write_text(RAW_PAGE)
    (tmp_path / "chapters" / "clean.html").write_text(CLEAN_PAGE)
    problems = check_rendered.check_html(tmp_path)
    assert list(problems) == ["chapters/raw.html"]
    found = problems["chapters/raw.html"]
    excerpts = "\n".join(excerpt for _, excerpt in found)
    for planted in ("{}^A\\mathbf I", "$\\mathbf b_i", "\\boldsymbol\\Lambda_i", "{eq}`eq-rnea-trick`",
                    "|—|—|—|", "```{note}", "( (5.3) )"):
        assert planted in excerpts, planted
    assert {kind for kind, _ in found} == {"raw TeX", "raw MyST role", "raw MyST directive", "Markdown table",
                                           "equation number in double parentheses"}
    assert check_rendered.main("html", tmp_path) == 1


def test_the_summary_says_how_many_pages_were_read(tmp_path, capsys):
    (tmp_path / "index.html").write_text('<meta http-equiv="Refresh" content="0; url=clean.html" />')
    (tmp_path / "clean.html").write_text(CLEAN_PAGE)
    assert check_rendered.main("html", tmp_path) == 0
    assert capsys.readouterr().out.strip().endswith("none found, on 1 page")
    (tmp_path / "raw.html").write_text(RAW_PAGE)
    assert check_rendered.main("html", tmp_path) == 1
    assert "problems, on 1 of 2 pages" in capsys.readouterr().out


def test_math_code_outputs_and_scripts_are_not_prose():
    prose = " ".join(check_rendered.html_prose(CLEAN_PAGE))
    assert "in a sentence" in prose and "Lecture 4’s spatial inertia" in prose
    for hidden in ("\\mathbf", "\\frac", "{eq}", "|---|", "bmatrix", "iVBOR"):
        assert hidden not in prose
    assert not any(check_rendered.raw_in_text(block) for block in check_rendered.html_prose(CLEAN_PAGE))


def test_the_html_check_reads_the_raw_blocks_once():
    blocks = check_rendered.html_prose("<body><div><p>one <em>two</em></p>three<ul><li>four</li></ul></div></body>")
    assert blocks == ["one  two", "three", "four"]


# A small Sphinx project built as the book is (XeLaTeX, FreeSerif and FreeMono): prose with a raw
# link text and a Markdown table printed as text, an equation wider than the page, a code block
# wider than the page, and code that may hold TeX (it is code, not prose).
CONF = """project = "t"
latex_engine = "xelatex"
latex_elements = {"fontpkg": "\\\\setmainfont{FreeSerif}\\\\setsansfont{FreeSans}\\\\setmonofont{FreeMono}"}
"""
INDEX = """Title
=====

Raw text in prose: Lecture 4's {}^A\\\\mathbf I and a role {eq}`eq-x`.

| body | twist |
|---|---|
| 1 | (0, 0, 1) |

.. math::

   {long}

.. code-block:: python

    label = r"$\\mathbf I^A_i$"  # TeX in code is code
    a[i] = (a[k] if k >= 0 else m.a_base) + s[d].T @ qdd[d] + cross_motion(v[i], vJ) + cross_motion(v[i], vJ) + 1
""".replace("{long}", " + ".join(f"a_{{{k}}} b_{{{k}}}" for k in range(45)))


@pytest.fixture(scope="module")
def small_pdf(tmp_path_factory):
    if not (shutil.which("xelatex") and shutil.which("pdftohtml") and shutil.which("latexmk")):
        pytest.skip("make pdf installs XeLaTeX; poppler-utils gives pdftohtml")
    folder = tmp_path_factory.mktemp("small_book")
    (folder / "conf.py").write_text(CONF)
    (folder / "index.rst").write_text(INDEX)
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "latex", str(folder), str(folder / "latex")],
                   check=True)
    subprocess.run(["latexmk", "-pdfxe", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
                   cwd=folder / "latex", check=True, capture_output=True)
    return folder / "latex" / "t.pdf"


def test_raw_text_and_broken_code_lines_in_a_pdf_are_found(small_pdf):
    problems = check_rendered.check_pdf(small_pdf)
    found = [item for page in problems.values() for item in page]
    kinds = [kind for kind, _ in found]
    assert kinds.count("code line broken across lines") == 1
    excerpts = "\n".join(excerpt for _, excerpt in found)
    assert "{}^A\\mathbf I" in excerpts and "{eq}`eq-x`" in excerpts and "|---|" in excerpts.replace("—", "---")
    assert "label" not in excerpts  # the TeX inside the code block is code
    assert {"raw TeX", "raw MyST role", "Markdown table"} <= set(kinds)
    assert kinds.count("wider than the text block") == 1               # the equation runs into the margin
    assert check_rendered.main("pdf", small_pdf) == 1
