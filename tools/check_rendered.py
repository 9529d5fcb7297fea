"""Read the built book as a reader does and fail on anything left raw.

What a reader should never see as source text:

- TeX outside math: ``$\\``, ``\\mathbf``, ``\\frac``, ... (an inline formula that Markdown broke, a
  link whose text is a heading's TeX);
- MyST outside code: a role (``{eq}`eq-label```) or a directive fence (````` ```{note} `````);
- Markdown table syntax: ``| a | b |`` rows and ``|---|`` rules (a table printed as its source);
- an equation reference inside parentheses, which prints as ``((5.3))``.

In the HTML (``html`` mode) the prose of every page is read: its text outside math, code blocks,
inline code and scripts.  In the PDF (``pdf`` mode) the text is read with poppler
(``pdftohtml -xml``, which keeps each piece of text's font): the text outside the monospaced
code font is prose, and the whole text is also searched for the marks of code lines that
LaTeX broke because they were wider than the page (a line continued after a hooked arrow), which
a printed book never has; each page is also rendered as an image and fails when ink reaches into the
left or right margin (an equation, matrix or table wider than the text block).

Usage: ``python tools/check_rendered.py html [BUILD_HTML_DIR]`` or
``python tools/check_rendered.py pdf [BOOK_PDF]``; exit status 1 when something is raw.
"""

from __future__ import annotations

import html as html_module
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIPPED = {"genindex.html", "search.html", "py-modindex.html"}

# TeX commands a reader should only ever see typeset.  A backslash followed by letters is TeX in
# English prose; the list below names the common ones so that the report says which it was.
RAW = {
    "raw TeX": re.compile(r"\$\\|\\(?:[A-Za-z]{2,}|[,;!{}])|\{\}\^"),
    "raw MyST role": re.compile(r"\{[a-z][\w:-]*\}`"),
    "raw MyST directive": re.compile(r"(?:```|:::)\{[a-z][\w:-]*\}|^:(?:label|class|name|caption|tags):", re.M),
    "Markdown table": re.compile(r"\|\s*:?[-\u2013\u2014]{1,}:?\s*\|"),
    # an equation reference, which prints its own parentheses, inside parentheses: "((5.3))"
    "equation number in double parentheses": re.compile(r"\(\s*\((?:\d+|[A-Z])\.\d+\)"),
}
# Code lines that LaTeX broke: the continuation starts with Sphinx's hooked arrow, which pdftotext
# reads as ",→" (or "↪"), usually at the start of a line.
CONTINUATION = re.compile(r",\s?→|↪")

# The PDF's text block: Sphinx's default geometry (hmargin=1in) on every page; ink this far into a
# side margin is something wider than the text.
MARGIN_IN = 1.0
MARGIN_SLACK_PT = 4.0
INK = 140  # grey level (0 black, 255 white) darker than which a pixel counts as ink

# What is not prose in a built HTML page: math (typeset by MathJax from these elements), code and
# literal blocks (inputs, outputs, listings), inline code, scripts and styles.
NOT_PROSE_TAGS = {"script", "style", "pre", "code", "kbd", "samp", "tt", "head", "svg", "mjx-container", "math"}
NOT_PROSE_CLASSES = {"math", "highlight"}
BLOCKS = {"p", "li", "td", "th", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption", "caption",
          "summary", "blockquote", "div", "section", "nav", "body", "article", "aside", "header", "footer",
          "main", "table", "tr", "ul", "ol", "dl", "details", "figure"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Prose(HTMLParser):
    """Collects the text of a page outside math, code and scripts, one string per block."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.skipping, self.blocks, self.current = [], 0, [], []

    def flush(self):
        text = " ".join(self.current)
        if text.strip():
            self.blocks.append(text)
        self.current = []

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        skip = tag in NOT_PROSE_TAGS or bool(classes & NOT_PROSE_CLASSES)
        if tag in BLOCKS and not self.skipping:
            self.flush()
        self.stack.append((tag, skip))
        self.skipping += skip

    def handle_endtag(self, tag):
        if tag in VOID or all(open_tag != tag for open_tag, _ in self.stack):
            return
        while self.stack:  # an element closes whatever the page left open inside it
            open_tag, skip = self.stack.pop()
            self.skipping -= skip
            if open_tag == tag:
                break
        if tag in BLOCKS and not self.skipping:
            self.flush()

    def handle_data(self, data):
        if not self.skipping:
            self.current.append(data)


def raw_in_text(text):
    """``[(kind, excerpt)]``: each kind of raw source found in a piece of prose, with its context."""
    found = []
    for kind, pattern in RAW.items():
        match = pattern.search(text)
        if match:
            start, end = max(0, match.start() - 50), min(len(text), match.end() + 50)
            found.append((kind, " ".join(text[start:end].split())))
    return found


def html_prose(page_html):
    """The prose of an HTML page: one string per block of text outside math, code and scripts."""
    parser = _Prose()
    parser.feed(re.sub(r"data:[a-z]+/[^\"']+", "", page_html))  # pages carry megabytes of embedded images
    parser.close()
    parser.flush()
    return parser.blocks


def html_pages(html_dir):
    """The content pages of a built HTML book (not Sphinx's index and search pages, nor redirects)."""
    html_dir = Path(html_dir)
    return sorted(p for p in html_dir.rglob("*.html")
                  if p.name not in SKIPPED and not p.relative_to(html_dir).parts[0].startswith(("_", "."))
                  and 'http-equiv="Refresh"' not in p.read_text()[:2000])


def check_html(html_dir):
    """``{page: [(kind, excerpt)]}`` for every page of a built HTML book with raw source in its prose."""
    html_dir = Path(html_dir)
    problems = {}
    for path in html_pages(html_dir):
        found = []
        for block in html_prose(path.read_text()):
            for item in raw_in_text(block):
                if item not in found:
                    found.append(item)
        if found:
            problems[path.relative_to(html_dir).as_posix()] = found
    return problems


def pdf_pages_text(pdf):
    """``[(prose, all_text)]`` per page of a PDF: the text outside monospaced fonts, and all the text.

    Read with poppler's ``pdftohtml -xml``, which gives every run of text with its font, and its
    ``pdftotext``, which gives the lines as laid out.
    """
    xml = subprocess.run(["pdftohtml", "-xml", "-i", "-q", "-stdout", "-enc", "UTF-8", str(pdf)],
                         check=True, capture_output=True).stdout.decode("utf-8", "replace")
    xml = re.sub(r"<!DOCTYPE[^>]*>", "", xml)
    xml = re.sub(r"&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)", "&amp;", xml)
    root = ElementTree.fromstring(xml)
    mono = set()
    prose_pages = []
    for page in root.iter("page"):
        for spec in page.iter("fontspec"):
            if "mono" in spec.get("family", "").lower():
                mono.add(spec.get("id"))
        lines = []
        for text in page.iter("text"):
            if text.get("font") not in mono:
                lines.append(html_module.unescape("".join(text.itertext())))
        prose_pages.append("\n".join(lines))
    plain = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], check=True,
                           capture_output=True).stdout.decode("utf-8", "replace").split("\f")
    plain += [""] * (len(prose_pages) - len(plain))
    return list(zip(prose_pages, plain))


def read_pgm(path):
    """Width, height and grey bytes of a binary PGM image (what ``pdftoppm -gray`` writes)."""
    data = Path(path).read_bytes()
    magic, width, height, _, pixels = data.split(maxsplit=4)
    if magic != b"P5":
        raise ValueError(f"{path} is not a binary PGM image")
    return int(width), int(height), pixels


def pages_into_margins(pdf, dpi=36):
    """``{page number: pixels of ink}`` for the pages with ink in a side margin, between header and footer."""
    found = {}
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run(["pdftoppm", "-r", str(dpi), "-gray", str(pdf), f"{folder}/page"], check=True)
        for image in sorted(Path(folder).glob("page-*.pgm")):
            width, height, pixels = read_pgm(image)
            margin = int((MARGIN_IN * 72 - MARGIN_SLACK_PT) * dpi / 72)
            columns = list(range(3, margin)) + list(range(width - margin, width - 3))
            ink = sum(1 for y in range(int(0.08 * height), int(0.92 * height)) for x in columns
                      if pixels[y * width + x] < INK)
            if ink:
                found[int(image.stem.split("-")[-1])] = ink
    return found


def check_pdf(pdf):
    """``{"p. N": [(kind, excerpt)]}`` for every page of the PDF with raw source or broken code lines."""
    problems = {}
    for number, (prose, plain) in enumerate(pdf_pages_text(pdf), start=1):
        found = []
        for line in prose.split("\n"):
            for item in raw_in_text(line):
                if item not in found:
                    found.append(item)
        lines = plain.split("\n")
        for k, line in enumerate(lines):
            for _ in CONTINUATION.finditer(line):
                broken = " ".join((lines[k - 1] + " " + line if k else line).split())
                found.append(("code line broken across lines", broken[:120]))
        if found:
            problems[f"p. {number}"] = found
    for number, ink in pages_into_margins(pdf).items():
        problems.setdefault(f"p. {number}", []).append(
            ("wider than the text block", f"{ink} pixels of ink in a side margin (at 36 dpi)"))
    return dict(sorted(problems.items(), key=lambda item: int(item[0].split()[-1])))


def pdf_page_count(pdf):
    """The number of pages of a PDF (poppler's ``pdfinfo``)."""
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.MULTILINE).group(1))


def report(problems, what, checked):
    """Print the problems found on the ``checked`` pages; return the exit status."""
    count = sum(len(found) for found in problems.values())
    for where, found in problems.items():
        print(f"{where}:")
        for kind, excerpt in found:
            print(f"  {kind}: {excerpt}")
    pages = f"{checked} page" + ("" if checked == 1 else "s")
    if count:
        print(f"{what}: {count} problems, on {len(problems)} of {pages}")
    else:
        print(f"{what}: none found, on {pages}")
    return 1 if count else 0


def main(mode="html", target=None):
    if mode == "html":
        target = Path(target or ROOT / "_build" / "html")
        if not (target / "index.html").exists():
            raise SystemExit(f"no built book in {target}: run `make book` first")
        return report(check_html(target), f"raw source in the prose of the HTML book ({target})",
                      len(html_pages(target)))
    if mode == "pdf":
        target = Path(target or ROOT / "_build" / "latex" / "book.pdf")
        if not target.exists():
            raise SystemExit(f"no PDF at {target}: run `make pdf` first")
        return report(check_pdf(target), f"raw source and broken code lines in the PDF ({target})",
                      pdf_page_count(target))
    raise SystemExit(f"usage: {sys.argv[0]} html|pdf [PATH]")


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
