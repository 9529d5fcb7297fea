"""Show the library's own source in a chapter, as a highlighted code block, and long sympy results
as equations broken over lines.

Chapters never re-implement an algorithm: they display the tested function.  A listing shows the
code without its docstring (the chapter around it says what the docstring would), as Markdown (a
fenced ``python`` block), which the book renders as a code block in HTML and in the PDF alike.
A long symbolic result shown whole (a matrix of torques) is wider than the page; ``show_terms``
sets each entry as its own equation, a few terms to a line.

Chapter: every chapter that shows an implementation.
"""

from __future__ import annotations

import ast
import inspect
import textwrap

__all__ = ["show_source", "source_without_docstrings", "show_terms"]


def source_without_docstrings(obj):
    """The source of a function or class with the docstrings of it and of its methods removed.

    Parameters
    ----------
    obj : function or class

    Returns
    -------
    str
    """
    source = textwrap.dedent(inspect.getsource(obj))
    lines = source.splitlines()
    drop = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            if docstring and isinstance(first.value.value, str):
                drop.update(range(first.lineno - 1, first.end_lineno))
    return "\n".join(line for k, line in enumerate(lines) if k not in drop).rstrip()


def show_source(*objects, docstrings=False):
    """A code block with the source of one or more functions or classes, one after another.

    Parameters
    ----------
    *objects : function or class
        What to show, in order (for example a kernel and the steps it calls).
    docstrings : bool
        Keep the docstrings (by default a listing shows the code alone).

    Returns
    -------
    IPython.display.Markdown
        Display it as the last expression of a cell.

    Examples
    --------
    >>> from dynlib.course.checks import relative_close
    >>> listing = show_source(relative_close)
    >>> listing.data.splitlines()[:2]
    ['```python', 'def relative_close(actual, desired, rtol=1e-10, scale=None):']
    >>> "Parameters" in listing.data            # the docstring is left out
    False
    """
    from IPython.display import Markdown

    if not objects:
        raise ValueError("show_source needs at least one function or class")
    for obj in objects:
        if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj)):
            raise TypeError(f"show_source shows functions and classes, got {type(obj).__name__}")
    show = (lambda o: inspect.getsource(o).rstrip()) if docstrings else source_without_docstrings
    code = "\n\n".join(show(obj) for obj in objects)
    return Markdown(f"```python\n{code}\n```")


def show_terms(*equations, per_line=2):
    r"""Equations ``lhs = rhs`` set one under another, each right-hand side broken after ``per_line`` terms.

    Parameters
    ----------
    *equations : (str or sympy expression, sympy expression)
        Left-hand side (TeX, or an expression) and the sum to show on the right.
    per_line : int
        Terms of the sum on each line (at least 1).

    Returns
    -------
    IPython.display.Math
        Display it as the last expression of a cell: it renders as aligned equations in the HTML
        and in the PDF.

    Examples
    --------
    >>> import sympy as sp
    >>> a, b, c = sp.symbols("a b c")
    >>> shown = show_terms((r"\tau_1", a + 2 * b - c), per_line=2)
    >>> shown.data.count(r"\\"), r"&\quad - c" in shown.data       # a second line, for the third term
    (1, True)
    """
    import sympy as sp
    from IPython.display import Math

    if not equations or int(per_line) < 1:
        raise ValueError("show_terms needs at least one (lhs, rhs) pair and per_line >= 1")
    rows = []
    for lhs, rhs in equations:
        terms = sp.sympify(rhs).as_ordered_terms()
        pieces = []
        for k, term in enumerate(terms):
            negative = term.could_extract_minus_sign()
            sign = "- " if negative else ("+ " if k else "")
            pieces.append(sign + sp.latex(-term if negative else term))
        lines = [" ".join(pieces[k:k + int(per_line)]) for k in range(0, len(pieces), int(per_line))]
        left = lhs if isinstance(lhs, str) else sp.latex(lhs)
        rows.append(f"{left} &= {lines[0]}" + "".join(f" \\\\ &\\quad {line}" for line in lines[1:]))
    return Math("\\begin{aligned}" + " \\\\ ".join(rows) + "\\end{aligned}")
