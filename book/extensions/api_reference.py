"""Sphinx extension: the API reference documents each named tuple's fields once.

The numpydoc "Attributes" section of a ``NamedTuple`` (``Screw``, ``Kinematics``, ...) already says
what each field holds; autodoc would also list every field as an attribute whose docstring is the
one Python generates, "Alias for field number N".  Those entries are skipped.
"""

import re

GENERATED = re.compile(r"Alias for field number \d+")


def skip_generated_field(app, what, name, obj, skip, options):
    """Skip a member whose only documentation is Python's generated named-tuple field docstring."""
    doc = getattr(obj, "__doc__", None)
    if isinstance(doc, str) and GENERATED.fullmatch(doc.strip()):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", skip_generated_field)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
