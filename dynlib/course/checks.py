"""Comparisons for "check it" cells and tests: relative tolerances for numbers, exact zero for sympy.

Numbers agree when their difference is small *relative to their size*; when the expected
value is zero, pass the size of the terms that cancel as ``scale``.  Sympy expressions are
zero when expansion, a trigonometric normal form (sin and cos of each angle reduced with
``cos^2 = 1 - sin^2``) or ``simplify`` says so.

Chapter: every chapter's "check it" cells; the tests use the same rules.
"""

from __future__ import annotations

import numpy as np

from ..core.backend import sympy_module

__all__ = ["relative_close", "exactly_zero"]


def relative_close(actual, desired, rtol=1e-10, scale=None):
    """True when two arrays of the same shape agree to ``rtol`` relative to the larger of their magnitudes.

    Arrays of different shapes are never close (no broadcasting: a vector of n entries is not close
    to an n x 1 column), except that ``desired`` may be a single number, which every entry of
    ``actual`` is compared with (``relative_close(residual, 0.0, scale=...)``).

    Parameters
    ----------
    actual, desired : array_like
    rtol : float
    scale : float, optional
        The size of the terms that cancel, for an expected value of zero (otherwise
        the tolerance would shrink to nothing).

    Returns
    -------
    bool

    Examples
    --------
    >>> relative_close(1e6 + 1e-5, 1e6) and not relative_close(1e-5, 0.0)
    True
    >>> relative_close(1e-12, 0.0, scale=1.0)
    True
    >>> relative_close([1.0, 2.0], [[1.0], [2.0]])   # a row is not a column
    False
    """
    actual, desired = np.asarray(actual, dtype=float), np.asarray(desired, dtype=float)
    if actual.shape != desired.shape and desired.ndim > 0:
        return False
    if scale is None:
        scale = max(np.abs(desired).max(initial=0.0), np.abs(actual).max(initial=0.0))
    scale = max(scale, np.finfo(float).tiny)
    return bool(np.all(np.abs(actual - desired) <= rtol * scale))


def _trig_normal_form(expr):
    """Expand, write sin/cos of each angle as symbols s, c and reduce c**2 -> 1 - s**2."""
    sp = sympy_module()
    expr = sp.expand(sp.expand_trig(sp.expand(expr)))
    angles = {f.args[0] for f in expr.atoms(sp.sin, sp.cos)}
    for k, angle in enumerate(sorted(angles, key=sp.default_sort_key)):
        s, c = sp.Dummy(f"s{k}"), sp.Dummy(f"c{k}")
        expr = sp.expand(expr.xreplace({sp.sin(angle): s, sp.cos(angle): c}))
        poly = sp.Poly(expr, c)
        expr = sp.expand(sum(coeff * c ** (j % 2) * (1 - s**2) ** (j // 2) for (j,), coeff in poly.terms()))
    return expr


def exactly_zero(expressions):
    """True when every entry of a sympy expression or array is identically zero.

    Parameters
    ----------
    expressions : sympy expression or array_like of them

    Returns
    -------
    bool

    Examples
    --------
    >>> import sympy
    >>> t = sympy.Symbol("t")
    >>> exactly_zero([sympy.sin(t) ** 2 + sympy.cos(t) ** 2 - 1, 0]) and not exactly_zero(t)
    True
    >>> exactly_zero(sympy.cos(t) / sympy.sqrt(sympy.sin(t) ** 2 + sympy.cos(t) ** 2) - sympy.cos(t))
    True
    """
    sp = sympy_module()
    for e in np.ravel(np.asarray(expressions, dtype=object)):
        e = sp.sympify(e)
        if sp.expand(e) != 0 and _trig_normal_form_is_not_zero(e) and sp.simplify(e) != 0:
            return False
    return True


def _trig_normal_form_is_not_zero(e):
    """The normal form is not zero, or it does not apply (sin/cos under a root or in a denominator)."""
    sp = sympy_module()
    try:
        return _trig_normal_form(e) != 0
    except sp.PolynomialError:
        return True
