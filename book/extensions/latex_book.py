"""Sphinx extension: the PDF reads like a printed book, numbered like the HTML.

Without it, Sphinx's LaTeX writer makes every heading of the landing page and every page of the
"Start here" and "Reference" parts a numbered chapter, so the first chapter of the course prints
as chapter 8, and the parts of ``_toc.yml`` are lost.  Here:

- the landing page, the notation page and the reference pages become unnumbered chapters (still in
  the table of contents), so the course's chapters are numbered 1, 2, ... as online, and so are
  their sections, equations and figures;
- each numbered part of ``_toc.yml`` opens with ``\\part{...}`` ("Part I: Screws, motion and
  inertia" prints as Part I, "Screws, motion and inertia"), and so does an unnumbered part whose
  caption reads "Part ...: ..." (a part that opens with an unnumbered page, such as a recap); a part
  without a caption continues the part before it, with no heading of its own (that is how a numbered
  part follows such an opening page); any other part after the first opens with an unnumbered part
  heading;
- the landing page is the preface (its sections are the preface's unnumbered sections) and the
  contents page is titled "Contents", so the front matter reads title, contents, preface, notation;
- what the HTML folds away is left out of print: the input of cells tagged ``hide-input`` (plotting
  and checks: their outputs stay), outputs tagged ``hide-output`` and whole cells tagged
  ``hide-cell``; ``remove-*`` tags already act everywhere;
- on an exercise page the solutions move to a "Solutions" section at the end of the page (the end
  of the chapter) and the check cells, which only test an answer when the notebook runs, are left
  out;
- a text output's lines longer than the page holds at 8 pt are wrapped at spaces, continued with an
  indent (the HTML wraps them in the browser, book.css), so printed outputs fit the page;
- every code block is set in a font small enough for its longest line to fit the text width
  (8 pt, smaller for a block with longer lines, down to ``SMALLEST_CODE_PT``), so that no line is
  broken; a line too long even for that is broken, and ``tools/check_rendered.py`` reports it.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import yaml
from docutils import nodes
from sphinx import addnodes

CHAPTER = re.compile(r"^\\chapter\{(.*)\}\s*$")
LABEL_DOC = re.compile(r"\\label\{\\detokenize\{([^{}:]+):")
SECTIONING = re.compile(r"^\\(section|subsection|subsubsection)\{")
NUMBERED_PART = re.compile(r"^Part [IVXLC]+:\s*(.*)$")
ONE_DOWN = {"section": "subsection", "subsection": "subsubsection", "subsubsection": "paragraph"}

FOLDED = {"hide-input": ("cell_input",), "hide-output": ("cell_output",), "hide-cell": ("cell_input", "cell_output")}

# The text block is 6.5 in (469.75 pt) wide and FreeMono's characters are 0.6 em; a code block's frame
# and a box around it take some of the width.
CODE_WIDTH_PT = 452.0
INDENT_PT = 26.0        # what a box (exercise, solution) or an API entry takes of the width
CODE_PT = 8.0
SMALLEST_CODE_PT = 6.0
CONTENTS = re.compile(r"^(\\addto\\captions\w+\{\\renewcommand\{\\contentsname\}\{)[^{}]*(\}\})\s*$")

def leave_out_folded(doctree):
    """Remove from a doctree the parts of notebook cells that the HTML folds behind a toggle."""
    for cell in list(doctree.findall(nodes.container)):
        classes = cell.get("classes", [])
        if "cell" not in classes:
            continue
        tags = {c[len("tag_"):] for c in classes if c.startswith("tag_")}
        drop = {part for tag in tags & FOLDED.keys() for part in FOLDED[tag]}
        for child in list(cell.children):
            if drop & set(child.get("classes", [])):
                cell.remove(child)


def wrapped_output(text, columns=None):
    """A text output with each line longer than ``columns`` wrapped at spaces, continued 4 spaces in."""
    columns = columns or int(CODE_WIDTH_PT / (0.6 * CODE_PT))
    lines = []
    for line in text.split("\n"):
        if len(line) <= columns or " " not in line.strip():
            lines.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        lines += textwrap.wrap(line, width=columns, initial_indent="", subsequent_indent=indent + "    ",
                               break_long_words=False, break_on_hyphens=False, drop_whitespace=True) or [line]
    return "\n".join(lines)


def wrap_text_outputs(doctree):
    """Wrap the long lines of every text output (stream and plain text) to the width of the page."""
    for block in list(doctree.findall(nodes.literal_block)):
        if "output" in block.get("classes", []):
            text = block.astext()
            wrapped = wrapped_output(text)
            if wrapped != text:
                block.children = []
                block += nodes.Text(wrapped)
                block.rawsource = wrapped


def code_font_size(text, width=CODE_WIDTH_PT):
    """The font size (pt) at which every line of a code block fits a width (pt, the text width by default)."""
    longest = max((len(line.expandtabs()) for line in text.splitlines()), default=0)
    fitting = width / (0.6 * max(longest, 1))
    return CODE_PT if fitting >= CODE_PT else max(SMALLEST_CODE_PT, int(2 * fitting) / 2)


def _indented(node):
    """Whether a node sits inside a box (exercise, solution, note) or an API entry, which take width."""
    return any(isinstance(up, nodes.Admonition) or _kind(up) in ("desc_content", "exercise_enumerable_node",
                                                                 "exercise_node", "solution_node")
               for up in _ancestors(node))


def fit_code_to_page(doctree):
    """Set each code block (and docstring example) too wide for the page at 8 pt in a smaller font."""
    for block in list(doctree.findall(lambda n: isinstance(n, (nodes.literal_block, nodes.doctest_block)))):
        size = code_font_size(block.astext(), CODE_WIDTH_PT - (INDENT_PT if _indented(block) else 0))
        if size < CODE_PT and block.parent is not None:
            parent, index = block.parent, block.parent.index(block)
            font = f"\\begingroup\\fvset{{fontsize=\\fontsize{{{size:g}}}{{{1.2 * size:g}}}\\selectfont}}"
            parent.insert(index + 1, nodes.raw("", "\\endgroup\n", format="latex"))
            parent.insert(index, nodes.raw("", font + "\n", format="latex"))


def _kind(node):
    return type(node).__name__


def solutions_at_the_end(doctree):
    """Move an exercise page's solutions to a "Solutions" section at its end; leave its check cells out.

    The check cells are the code cells that follow a solution, up to the next exercise.
    """
    solutions, checks, after_solution = [], [], False
    for node in list(doctree.findall(nodes.Element)):
        if _kind(node) == "exercise_enumerable_node" or _kind(node) == "exercise_node":
            after_solution = False
        elif _kind(node) == "solution_node":
            solutions.append(node)
            after_solution = True
        elif (after_solution and isinstance(node, nodes.container) and "cell" in node.get("classes", [])
              and not any(_kind(up) == "solution_node" for up in _ancestors(node))):
            checks.append(node)
    page = next(iter(doctree.findall(nodes.section)), None)
    if not solutions or page is None:
        return
    for node in solutions + checks:
        node.parent.remove(node)
    section = nodes.section(ids=["solutions-at-the-end"], names=["solutions at the end"])
    section += nodes.title("", "Solutions")
    section += nodes.paragraph("", "The solutions to the exercises above. The notebook's check cells, which test "
                                   "an answer when it runs, are left out of print.")
    section.extend(solutions)
    page += section


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def parts_of(toc):
    """``[(caption, numbered, [docname of each chapter])]`` from the parts of a ``_toc.yml``."""
    return [(part.get("caption", ""), bool(part.get("numbered")), [c["file"] for c in part.get("chapters", [])])
            for part in toc.get("parts", [])]


def book_structure(tex, parts, root=None):
    """The LaTeX text with a preface, unnumbered front and back matter and a ``\\part`` for each part.

    ``root`` is the landing page's document name: its headings become the preface's sections.
    """
    numbered = {doc for _, is_numbered, docs in parts if is_numbered for doc in docs}
    opening = {docs[0]: (caption, is_numbered) for k, (caption, is_numbered, docs) in enumerate(parts)
               if docs and k > 0 and caption}  # a part without a caption continues the one before
    root_label = f"\\label{{\\detokenize{{{root}::doc}}}}" if root else None
    lines = tex.split("\n")
    out, in_unnumbered, in_root = [], False, False
    for k, line in enumerate(lines):
        match = CHAPTER.match(line)
        if CONTENTS.match(line):
            line = CONTENTS.sub(lambda m: m.group(1) + "Contents" + m.group(2), line)
        elif root_label and line.strip().endswith(root_label):
            out.append(line)
            out.append("\\chapter*{Preface}\\addcontentsline{toc}{chapter}{Preface}\\markboth{Preface}{Preface}")
            in_root = True
            continue
        if match:
            following = lines[k + 1] if k + 1 < len(lines) else ""
            doc = LABEL_DOC.search(following)
            in_root = bool(root) and bool(doc) and doc.group(1) == root
            if in_root:
                out.append(f"\\section*{{{match.group(1)}}}")
                continue
        elif in_root and SECTIONING.match(line):
            out.append(SECTIONING.sub(lambda m: f"\\{ONE_DOWN[m.group(1)]}*{{", line, count=1))
            continue
        if match:
            title = match.group(1)
            following = lines[k + 1] if k + 1 < len(lines) else ""
            doc = LABEL_DOC.search(following)
            doc = doc.group(1) if doc else None
            if doc in opening:
                caption, is_numbered = opening[doc]
                short = NUMBERED_PART.match(caption)
                if is_numbered or short:
                    out.append(f"\\part{{{short.group(1) if short else caption}}}")
                else:
                    out.append(f"\\part*{{{caption}}}\\addcontentsline{{toc}}{{part}}{{{caption}}}")
            in_unnumbered = doc not in numbered
            if in_unnumbered:
                out.append(f"\\chapter*{{{title}}}\\addcontentsline{{toc}}{{chapter}}{{{title}}}"
                           f"\\markboth{{{title}}}{{{title}}}")
                continue
        elif in_unnumbered and SECTIONING.match(line):
            line = SECTIONING.sub(lambda m: f"\\{m.group(1)}*{{", line, count=1)
        out.append(line)
    return "\n".join(out)


def _doctree_resolved(app, doctree, docname):
    if app.builder.name == "latex":  # the whole book, each page inside a start_of_file node
        leave_out_folded(doctree)
        for page in list(doctree.findall(addnodes.start_of_file)):
            if page.get("docname", "").startswith("exercises/"):
                solutions_at_the_end(page)
        wrap_text_outputs(doctree)
        fit_code_to_page(doctree)


def _build_finished(app, exception):
    if exception is not None or app.builder.name != "latex":
        return
    toc = Path(app.srcdir) / "_toc.yml"
    if not toc.exists():
        return
    toc = yaml.safe_load(toc.read_text())
    for tex in Path(app.outdir).glob("*.tex"):
        tex.write_text(book_structure(tex.read_text(), parts_of(toc), toc.get("root")))


def setup(app):
    app.connect("doctree-resolved", _doctree_resolved)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
