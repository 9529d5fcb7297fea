"""Sphinx extension: the PDF reads like a printed book, numbered like the HTML.

Without it, Sphinx's LaTeX writer makes every heading of the landing page and every page of the
"Start here" and "Reference" parts a numbered chapter, so the first chapter of the course prints
as chapter 8, and the parts of ``_toc.yml`` are lost.  Here:

- the landing page, the notation page and the reference pages become unnumbered chapters (still in
  the table of contents), so the course's chapters are numbered 1, 2, ... as online, and so are
  their sections, equations and figures;
- each numbered part of ``_toc.yml`` opens with ``\\part{...}`` ("Part I: Screws, motion and
  inertia" prints as Part I, "Screws, motion and inertia"); an unnumbered part other than the first
  opens with an unnumbered part heading;
- what the HTML folds away is left out of print: the input of cells tagged ``hide-input`` (plotting
  and checks: their outputs stay), outputs tagged ``hide-output`` and whole cells tagged
  ``hide-cell``; ``remove-*`` tags already act everywhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from docutils import nodes

CHAPTER = re.compile(r"^\\chapter\{(.*)\}\s*$")
LABEL_DOC = re.compile(r"\\label\{\\detokenize\{([^{}:]+):")
SECTIONING = re.compile(r"^\\(section|subsection|subsubsection)\{")
NUMBERED_PART = re.compile(r"^Part [IVXLC]+:\s*(.*)$")

FOLDED = {"hide-input": ("cell_input",), "hide-output": ("cell_output",), "hide-cell": ("cell_input", "cell_output")}


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


def parts_of(toc):
    """``[(caption, numbered, [docname of each chapter])]`` from the parts of a ``_toc.yml``."""
    return [(part.get("caption", ""), bool(part.get("numbered")), [c["file"] for c in part.get("chapters", [])])
            for part in toc.get("parts", [])]


def book_structure(tex, parts):
    """The LaTeX text with unnumbered front and back matter and a ``\\part`` for each part."""
    numbered = {doc for _, is_numbered, docs in parts if is_numbered for doc in docs}
    opening = {docs[0]: (caption, is_numbered) for k, (caption, is_numbered, docs) in enumerate(parts)
               if docs and k > 0}
    lines = tex.split("\n")
    out, in_unnumbered = [], False
    for k, line in enumerate(lines):
        match = CHAPTER.match(line)
        if match:
            title = match.group(1)
            following = lines[k + 1] if k + 1 < len(lines) else ""
            doc = LABEL_DOC.search(following)
            doc = doc.group(1) if doc else None
            if doc in opening:
                caption, is_numbered = opening[doc]
                short = NUMBERED_PART.match(caption)
                if is_numbered:
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
    if app.builder.name == "latex":
        leave_out_folded(doctree)


def _build_finished(app, exception):
    if exception is not None or app.builder.name != "latex":
        return
    toc = Path(app.srcdir) / "_toc.yml"
    if not toc.exists():
        return
    parts = parts_of(yaml.safe_load(toc.read_text()))
    for tex in Path(app.outdir).glob("*.tex"):
        tex.write_text(book_structure(tex.read_text(), parts))


def setup(app):
    app.connect("doctree-resolved", _doctree_resolved)
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
