"""Feedback for the exercise pages: compare a reader's answer with dynlib and say what is wrong.

Each exercise's check cell calls one of these.  On success it prints one line; on failure it
raises :class:`ExerciseFeedback` (an ``AssertionError``) whose message says which case failed,
what was expected against what was given where that does not give the answer away, and a
hint.  An answer not written yet (a function that raises ``NotImplementedError``, a value
left as ``...``) gets its own message.  ``tools/coursework.py grade`` scores an exercise by
whether its check cells pass.  The checks return None, so a check cell displays only the line
it prints.

Chapter: every exercise page; the instructors' page explains the format.
"""

from __future__ import annotations

import numpy as np

from ..core.backend import is_symbolic
from .checks import exactly_zero, relative_close

__all__ = ["ExerciseFeedback", "answered", "check_function", "check_answer", "check_property"]


class ExerciseFeedback(AssertionError):
    """An exercise check failed; the message is written for the reader."""


def _symbolic(value):
    import sys

    sympy = sys.modules.get("sympy")
    return is_symbolic(value) or (sympy is not None and isinstance(value, sympy.MatrixBase))


def _not_answered(value):
    return value is Ellipsis or value is None


def _as_sympy_matrix(value):
    import sympy as sp

    if isinstance(value, np.ndarray):
        return sp.Matrix(value.tolist()) if value.ndim else sp.sympify(value.item())
    return sp.Matrix(value) if isinstance(value, (list, tuple)) else sp.sympify(value)


def _mismatch(got, expected, rtol):
    """None when ``got`` matches ``expected``, else a short description of the difference."""
    if isinstance(expected, tuple):
        if not isinstance(got, tuple) or len(got) != len(expected):
            return f"expected a tuple of {len(expected)} results, got {type(got).__name__}"
        for k, (g, e) in enumerate(zip(got, expected), start=1):
            problem = _mismatch(g, e, rtol)
            if problem:
                return f"result {k} of {len(expected)}: {problem}"
        return None
    if _not_answered(got):
        return "no answer yet"
    if isinstance(expected, (bool, np.bool_, str)):
        return None if got == expected else "not the expected value"
    if _symbolic(expected) or _symbolic(got):
        try:
            difference = _as_sympy_matrix(got) - _as_sympy_matrix(expected)
        except Exception as exc:  # shapes or types that sympy cannot subtract
            return f"cannot be compared with the expected expression ({type(exc).__name__})"
        return None if exactly_zero(difference) else "does not simplify to the expected expression"
    try:
        got_array = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return f"expected numbers, got {type(got).__name__}"
    expected_array = np.asarray(expected, dtype=float)
    if got_array.shape != expected_array.shape:
        return f"expected shape {expected_array.shape}, got shape {got_array.shape}"
    if np.any(np.isnan(got_array)):
        return "contains NaN"
    infinite = np.isinf(expected_array)
    if np.any(got_array[infinite] != expected_array[infinite]) or np.any(np.isinf(got_array[~infinite])):
        return "has infinities where none are expected, or misses one"
    got_array, expected_array = got_array[~infinite], expected_array[~infinite]
    if relative_close(got_array, expected_array, rtol=rtol):
        return None
    if relative_close(-got_array, expected_array, rtol=rtol):
        return "has the wrong sign"
    size = max(np.abs(expected_array).max(initial=0.0), np.finfo(float).tiny)
    return f"differs by {np.abs(got_array - expected_array).max() / size:.2g} relative to its size"


def _show(value):
    with np.printoptions(precision=4, suppress=True):
        return "\n    ".join(repr(value).splitlines()) if not isinstance(value, np.ndarray) else \
            "\n    ".join(np.array2string(value).splitlines())


def _with_hint(message, hint):
    return message + (f"\n  Hint: {hint}" if hint else "")


def answered(**answers):
    """Stop with a friendly message when an answer is still ``...`` (call it first in a check cell).

    Parameters
    ----------
    **answers
        The reader's answers by name, e.g. ``answered(pitch=pitch, axis=axis)``.

    Returns
    -------
    None

    Raises
    ------
    ExerciseFeedback
        Naming the answers not given yet.

    Examples
    --------
    >>> answered(pitch=0.5, axis=...)
    Traceback (most recent call last):
    ...
    dynlib.course.exercises.ExerciseFeedback: no answer yet for `axis`: replace the ... with your answer and run its cell.
    """
    missing = [f"`{name}`" for name, value in answers.items() if _not_answered(value)]
    if missing:
        names = ", ".join(missing)
        raise ExerciseFeedback(f"no answer yet for {names}: replace the ... with your answer and run its cell.")


def check_function(candidate, reference, cases, name=None, rtol=1e-8, hint=None):
    """Call the reader's function and dynlib's on each case and report the first disagreement.

    Parameters
    ----------
    candidate : callable
        The reader's function.
    reference : callable
        What it must agree with (a dynlib function, or a wrapper around one).
    cases : iterable of (str, tuple)
        A short description of each case and the positional arguments passed to both.
    name : str, optional
        How to call the function in messages (default: its ``__name__``).
    rtol : float
        Relative tolerance for numbers; sympy results must agree exactly.
    hint : str, optional
        Printed with any failure.

    Returns
    -------
    None
        Prints one line when every case agrees.

    Raises
    ------
    ExerciseFeedback
        Naming the case, expected against got, and the hint.

    Examples
    --------
    >>> check_function(lambda x: 2 * x, lambda x: x + x, [("one", (1.0,)), ("two", (2.0,))], name="double")
    double: all 2 cases agree with dynlib.
    >>> check_function(lambda x: 3 * x, lambda x: x + x, [("one", (1.0,))], name="double")
    Traceback (most recent call last):
    ...
    dynlib.course.exercises.ExerciseFeedback: double is wrong on case 1 of 1 (one): differs by 0.5 relative to its size.
      expected 2.0
      got      3.0
    """
    name = name or getattr(candidate, "__name__", "your function")
    cases = list(cases)
    for k, (label, args) in enumerate(cases, start=1):
        expected = reference(*args)
        where = f"case {k} of {len(cases)} ({label})"
        try:
            got = candidate(*args)
        except NotImplementedError:
            message = f"{name} is not written yet: replace `raise NotImplementedError` with your code."
            raise ExerciseFeedback(message) from None
        except Exception as exc:  # the reader's code may fail in any way; report it as feedback
            message = f"{name} raised {type(exc).__name__} on {where}: {exc}"
            raise ExerciseFeedback(_with_hint(message, hint)) from None
        problem = _mismatch(got, expected, rtol)
        if problem:
            message = f"{name} is wrong on {where}: {problem}.\n  expected {_show(expected)}\n  got      {_show(got)}"
            raise ExerciseFeedback(_with_hint(message, hint))
    print(f"{name}: all {len(cases)} cases agree with dynlib.")


def check_answer(got, expected, name, rtol=1e-8, hint=None):
    """Check a value the reader derived or predicted, without printing the right one.

    Parameters
    ----------
    got : object
        The reader's answer: number, array, sympy expression or matrix, tuple of these,
        bool or str.  ``...`` or ``None`` means not answered yet.
    expected : object
        The right answer (computed in the check cell, never shown).
    name : str
        What the answer is, for the messages.
    rtol : float
        Relative tolerance for numbers; sympy answers must agree exactly.
    hint : str, optional
        Printed with any failure.

    Returns
    -------
    None
        Prints one line when the answer is right.

    Raises
    ------
    ExerciseFeedback

    Examples
    --------
    >>> import sympy
    >>> m, L = sympy.symbols("m L", positive=True)
    >>> check_answer(m * L**2 / 3, sympy.Rational(1, 3) * L**2 * m, "the inertia about the end")
    the inertia about the end: right.
    >>> check_answer(..., m * L**2 / 3, "the inertia about the end", hint="Use the parallel-axis theorem.")
    Traceback (most recent call last):
    ...
    dynlib.course.exercises.ExerciseFeedback: the inertia about the end: no answer yet (replace the ... with your answer).
      Hint: Use the parallel-axis theorem.
    """
    if _not_answered(got):
        raise ExerciseFeedback(_with_hint(f"{name}: no answer yet (replace the ... with your answer).", hint))
    problem = _mismatch(got, expected, rtol)
    if problem:
        raise ExerciseFeedback(_with_hint(f"{name}: not right yet ({problem}).", hint))
    print(f"{name}: right.")


def check_property(holds, claim, detail="", hint=None):
    """Check a property the reader's answer must have (an identity, a conservation law).

    Parameters
    ----------
    holds : bool
        Whether it holds, computed in the check cell.
    claim : str
        The property, stated positively ("the force line passes through q").
    detail : str
        What was measured, shown on failure (e.g. the residual).
    hint : str, optional

    Returns
    -------
    None
        Prints one line when the property holds.

    Raises
    ------
    ExerciseFeedback

    Examples
    --------
    >>> check_property(abs(0.5 - 0.5) < 1e-12, "the power is zero")
    holds: the power is zero.
    """
    if not holds:
        message = f"does not hold: {claim}." + (f"\n  {detail}" if detail else "")
        raise ExerciseFeedback(_with_hint(message, hint))
    print(f"holds: {claim}.")
