"""Sphinx extension: make references to exercises resolve in the PDF.

sphinx-exercise writes an exercise's LaTeX target as ``\\label{exercise:NAME}``, but Sphinx writes
references to it as ``\\ref{\\detokenize{DOCUMENT:NAME}}``, so in the PDF every "Exercise ??" is
unresolved.  After the LaTeX file is written, give each exercise target the label its references
use as well.
"""

import re
from pathlib import Path

REFERENCE = re.compile(r"\\detokenize\{([^{}:]+):([^{}:]+)\}")


def with_reference_labels(text):
    """The LaTeX text with each ``\\label{exercise:NAME}`` also labelled as its references name it."""
    targets = {name: document for document, name in REFERENCE.findall(text)}

    def both_labels(match):
        name = match.group(1)
        extra = f"\\label{{\\detokenize{{{targets[name]}:{name}}}}}" if name in targets else ""
        return match.group(0) + extra

    return re.sub(r"\\label\{exercise:([^{}]+)\}", both_labels, text)


def _add_exercise_labels(app, exception):
    if exception is not None or app.builder.name != "latex":
        return
    for tex in Path(app.outdir).glob("*.tex"):
        text = tex.read_text()
        fixed = with_reference_labels(text)
        if fixed != text:
            tex.write_text(fixed)


def setup(app):
    app.connect("build-finished", _add_exercise_labels)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
