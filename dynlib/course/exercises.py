"""Feedback for the exercise pages: compare a reader's answer with dynlib and say what is wrong.

Each exercise's check cell calls one of these.  On success it prints one line; on failure it
raises :class:`ExerciseFeedback` (an ``AssertionError``) whose message says which case failed,
what was expected against what was given where that does not give the answer away, and a
hint.  An answer not written yet (a function that raises ``NotImplementedError``, a value
left as ``...``) gets its own message.  ``tools/coursework.py grade`` scores an exercise by
whether its check cells pass.  The checks return None, so a check cell displays only the line
it prints.

A student's copy of a check cell holds no right answer: ``tools/assignments.py`` replaces each
``expected`` value of :func:`check_answer` by its :class:`Fingerprint` (slow salted hashes of the
value rounded to four significant figures, or of a sympy expression evaluated at fixed points),
which tells right from wrong and which entries differ, but not the value.

Chapter: every exercise page; the instructors' page explains the format.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
from contextlib import contextmanager

import numpy as np

from ..core.backend import is_symbolic
from .checks import exactly_zero, relative_close

__all__ = ["ExerciseFeedback", "Fingerprint", "Fingerprints", "Withheld", "answered", "check_function", "check_answer",
           "check_property"]


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


def _mismatch(got, expected, rtol, detail=True):
    """None when ``got`` matches ``expected``, else a short description of the difference.

    With ``detail`` (a function's result on a case) the description says how far a number is; without
    it (a derived or predicted value) only which entries differ, so that it never pins the value.
    """
    if type(expected).__name__ == "Fingerprint":  # also one made by another copy of this module (graded runs)
        return expected.mismatch(got)
    if isinstance(expected, tuple):
        if not isinstance(got, tuple) or len(got) != len(expected):
            return f"expected a tuple of {len(expected)} results, got {type(got).__name__}"
        for k, (g, e) in enumerate(zip(got, expected), start=1):
            problem = _mismatch(g, e, rtol, detail)
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
        return None if exactly_zero(difference) else _symbolic_difference(difference)
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
    if relative_close(got_array[~infinite], expected_array[~infinite], rtol=rtol):
        return None
    if not detail:
        return _entries_differ(got_array, expected_array, rtol)
    got_array, expected_array = got_array[~infinite], expected_array[~infinite]
    if relative_close(-got_array, expected_array, rtol=rtol):
        return "has the wrong sign"
    size = max(np.abs(expected_array).max(initial=0.0), np.finfo(float).tiny)
    return f"differs by {np.abs(got_array - expected_array).max() / size:.2g} relative to its size"


def _entries_differ(got, expected, rtol):
    """Which entries of two arrays of one shape differ ("not the expected value" for a number)."""
    if got.ndim == 0:
        return "not the expected value"
    scale = max(np.abs(expected).max(initial=0.0), np.abs(got).max(initial=0.0))
    wrong = np.argwhere(~np.isclose(got, expected, rtol=rtol, atol=rtol * scale))
    shown = ", ".join(str(tuple(int(i) for i in index)) if got.ndim > 1 else str(int(index[0]))
                      for index in wrong[:6])
    more = f" and {len(wrong) - 6} more" if len(wrong) > 6 else ""
    return f"entr{'y' if len(wrong) == 1 else 'ies'} {shown}{more} differ{'s' if len(wrong) == 1 else ''}"


def _symbolic_difference(difference):
    """Which entries of a sympy difference are not zero, and which symbols they involve."""
    import sympy as sp

    entries = difference if isinstance(difference, sp.MatrixBase) else sp.Matrix([difference])
    wrong = [(i, j) for i in range(entries.rows) for j in range(entries.cols) if not exactly_zero(entries[i, j])]
    symbols = sorted({str(x) for i, j in wrong for x in sp.simplify(entries[i, j]).free_symbols})
    where = "the expression differs" if entries.shape == (1, 1) else \
        "entries " + ", ".join(str(w) if entries.cols > 1 else str(w[0]) for w in wrong[:6]) + " differ"
    involved = f"; the difference involves {', '.join(symbols)}" if symbols else "; the difference is a constant"
    return where + involved

#: PBKDF2 rounds per hash: a check hashes a few dozen values in well under a second, while guessing
#: an answer from its fingerprint means hashing every four-digit number of every magnitude.
HASH_ROUNDS = 20_000
#: Significant figures a fingerprint keeps: a value within about 2e-4 relative of the answer is right.
FIGURES = 4


def _hash(text, salt):
    return hashlib.pbkdf2_hmac("sha256", text.encode(), salt.encode(), HASH_ROUNDS).hex()[:24]


def _roundings(x, exact):
    """The four-figure text of a number and of its two neighbours (a value near a rounding edge)."""
    if exact or x == 0:
        return [repr(x) if exact else "0"]
    mantissa, exponent = f"{x:.{FIGURES - 1}e}".split("e")
    step = 10.0 ** -(FIGURES - 1)
    return [f"{float(mantissa) + k * step:.{FIGURES - 1}f}e{int(exponent)}" for k in (0, -1, 1)]


def _numbers(value):
    """A float array of a number or array, with exact zeros for entries at round-off level."""
    array = np.asarray(value, dtype=complex)
    scale = np.abs(array).max(initial=0.0)
    array = np.where(np.abs(array) <= max(1e-9 * scale, 1e-12), 0, array)
    return array


def _points(symbols, count=3):
    """Fixed rational points (by symbol name) at which expressions are compared."""
    import sympy as sp

    rng = np.random.default_rng(sum(map(ord, "".join(sorted(symbols)))))
    return [{name: sp.Rational(int(rng.integers(300, 1700)), 1000) for name in symbols} for _ in range(count)]


def _evaluate(expr, point):
    import sympy as sp

    expr = sp.sympify(expr)
    values = {x: point.get(str(x), sp.Rational(7, 10)) for x in expr.free_symbols}
    return complex(sp.N(expr.subs(values), 30))


class Fingerprint:
    """A right answer in a form that tells a right answer from a wrong one without revealing it.

    Numbers: the shape and, per entry, a salted slow hash of the value rounded to four significant
    figures (entries at round-off level count as zero).  Sympy expressions and matrices: the shape,
    the names of the free symbols, and per entry hashes of its values at three fixed rational
    points.  Booleans, integers and strings: a hash of the value.  Tuples: a fingerprint per item.

    ``Fingerprint.of(value)`` makes one; ``repr`` gives the text that recreates it in a notebook.
    """

    def __init__(self, code):
        self.code = code
        self.data = json.loads(base64.b64decode(code))

    def __repr__(self):
        return f"Fingerprint({self.code!r})"

    @classmethod
    def of(cls, value, salt=None):
        return cls(base64.b64encode(json.dumps(cls._data(value, salt or os.urandom(6).hex())).encode()).decode())

    @classmethod
    def _data(cls, value, salt):
        if isinstance(value, list):  # a list of numbers or of sympy expressions: an array
            value = np.array(value, dtype=object) if any(_symbolic(v) for v in np.ravel(value)) else np.asarray(value)
        if isinstance(value, tuple):
            return {"kind": "tuple", "items": [cls._data(v, salt) for v in value]}
        if isinstance(value, (bool, np.bool_, str, int, np.integer)):
            text = repr(value.strip().lower() if isinstance(value, str) else
                        bool(value) if isinstance(value, (bool, np.bool_)) else int(value))
            return {"kind": type(value).__name__, "salt": salt, "hash": _hash(text, salt)}
        if _symbolic(value):
            matrix = _as_sympy_matrix(value)
            entries = matrix if hasattr(matrix, "shape") else None
            items = list(entries) if entries is not None else [matrix]
            names = sorted({str(x) for e in items for x in getattr(e, "free_symbols", set())})
            points = _points(names)
            hashes = [[_hash(_roundings(z, False)[0], salt) for z in
                       (c for p in points for c in (_evaluate(e, p).real, _evaluate(e, p).imag))] for e in items]
            shape = list(entries.shape) if entries is not None else []
            return {"kind": "sympy", "shape": shape, "symbols": names, "salt": salt, "hashes": hashes}
        array = _numbers(value)
        hashes = [_hash(_roundings(z.real, False)[0] + "," + _roundings(z.imag, False)[0], salt) for z in array.flat]
        return {"kind": "numbers", "shape": list(array.shape), "salt": salt, "hashes": hashes}

    def mismatch(self, got):
        """None when ``got`` rounds to the fingerprinted answer, else which part differs."""
        return _fingerprint_mismatch(self.data, got)


class Fingerprints:
    """The fingerprints of a check that runs once per case of a loop, handed out in turn.

    ``Fingerprints(code_1, code_2, ...).next()`` returns the fingerprint of the first case, then of
    the second, and so on (starting again after the last).
    """

    def __init__(self, *codes):
        self.items = [Fingerprint(code) for code in codes]
        self.count = 0

    def __repr__(self):
        return f"Fingerprints({', '.join(repr(item.code) for item in self.items)})"

    def next(self):
        item = self.items[self.count % len(self.items)]
        self.count += 1
        return item


class Withheld:
    """A prediction among a few choices (a joint number, yes or no, a word), withheld from practice checks.

    Whether such an answer is right could be found by trying the choices one by one, so a student's
    check only says whether its form is right (the kind of value and, for a sequence, its length);
    it is graded after the student hands it in.  ``Withheld.of(value)`` describes the right answer's
    form; ``repr`` gives the text that recreates it in a notebook.
    """

    def __init__(self, kind, length=None):
        self.kind, self.length = kind, length

    def __repr__(self):
        return f"Withheld({self.kind!r}" + (f", {self.length})" if self.length is not None else ")")

    @staticmethod
    def applies(value):
        """Whether ``value`` is a choice among few: a bool, an integer, a word, or a sequence of them."""
        if isinstance(value, (bool, np.bool_, int, np.integer, str)):
            return True
        if isinstance(value, (tuple, list)) or (isinstance(value, np.ndarray) and value.dtype.kind in "biuU"):
            return len(value) > 0 and all(Withheld.applies(v) for v in value)
        return False

    @classmethod
    def of(cls, value):
        if isinstance(value, (bool, np.bool_)):
            return cls("yes or no (True or False)")
        if isinstance(value, (int, np.integer)):
            return cls("a whole number")
        if isinstance(value, str):
            return cls("a word")
        return cls(f"a sequence of {cls.of(value[0]).kind}s", len(value))

    def mismatch(self, got):
        """None when ``got`` has the right form, else what is wrong with it."""
        if _not_answered(got):
            return "no answer yet"
        if self.length is None:
            right = {"yes or no (True or False)": isinstance(got, (bool, np.bool_)),
                     "a whole number": isinstance(got, (int, np.integer)) and not isinstance(got, (bool, np.bool_)),
                     "a word": isinstance(got, str)}[self.kind]
            return None if right else f"expected {self.kind}, got {type(got).__name__}"
        if not isinstance(got, (tuple, list, np.ndarray)) or len(got) != self.length:
            return f"expected {self.kind} of length {self.length}"
        return None


def _fingerprint_mismatch(data, got):
    if _not_answered(got):
        return "no answer yet"
    kind = data["kind"]
    if kind == "tuple":
        items = data["items"]
        if not isinstance(got, tuple) or len(got) != len(items):
            return f"expected a tuple of {len(items)} results, got {type(got).__name__}"
        for k, (g, d) in enumerate(zip(got, items), start=1):
            problem = _fingerprint_mismatch(d, g)
            if problem:
                return f"result {k} of {len(items)}: {problem}"
        return None
    salt = data.get("salt", "")
    if kind in ("bool", "bool_", "str", "int", "int64", "integer"):
        try:
            text = repr(got.strip().lower() if isinstance(got, str) else bool(got) if kind.startswith("bool")
                        else int(got) if float(got) == int(got) else got)
        except (TypeError, ValueError):
            return "not the expected value"
        return None if _hash(text, salt) == data["hash"] else "not the expected value"
    if kind == "sympy":
        return _fingerprint_sympy(data, got, salt)
    try:
        array = _numbers(got)
    except (TypeError, ValueError):
        return f"expected numbers, got {type(got).__name__}"
    if list(array.shape) != data["shape"]:
        return f"expected shape {tuple(data['shape'])}, got shape {array.shape}"
    if np.any(np.isnan(array)):
        return "contains NaN"
    wrong = [k for k, (z, h) in enumerate(zip(array.flat, data["hashes"]))
             if h not in {_hash(a + "," + b, salt) for a in _roundings(z.real, False) for b in _roundings(z.imag, False)}]
    if not wrong:
        return None
    if not data["shape"]:
        return "not the expected value"
    shown = [np.unravel_index(k, data["shape"]) for k in wrong[:6]]
    text = ", ".join(str(tuple(int(i) for i in w)) if len(data["shape"]) > 1 else str(int(w[0])) for w in shown)
    more = f" and {len(wrong) - 6} more" if len(wrong) > 6 else ""
    return f"entr{'y' if len(wrong) == 1 else 'ies'} {text}{more} differ{'s' if len(wrong) == 1 else ''}"


def _fingerprint_sympy(data, got, salt):
    try:
        matrix = _as_sympy_matrix(got)
    except Exception as exc:  # the reader's answer may be anything
        return f"cannot be compared with the expected expression ({type(exc).__name__})"
    items = list(matrix) if hasattr(matrix, "shape") else [matrix]
    shape = list(matrix.shape) if hasattr(matrix, "shape") else []
    if shape != data["shape"] and not (len(items) == 1 and not data["shape"]):
        return f"expected shape {tuple(data['shape'])}, got shape {tuple(shape)}"
    names = {str(x) for e in items for x in getattr(e, "free_symbols", set())}
    extra, missing = sorted(names - set(data["symbols"])), sorted(set(data["symbols"]) - names)
    points = _points(data["symbols"])
    wrong = []
    for k, (e, hashes) in enumerate(zip(items, data["hashes"])):
        try:
            values = [c for p in points for z in [_evaluate(e, p)] for c in (z.real, z.imag)]
        except (TypeError, ValueError):
            return "cannot be evaluated: is every symbol a sympy Symbol?"
        if any(h not in {_hash(r, salt) for r in _roundings(v, False)} for v, h in zip(values, hashes)):
            wrong.append(k)
    if not wrong:
        return None
    where = "the expression differs" if not data["shape"] else "entries " + ", ".join(
        str(tuple(int(i) for i in np.unravel_index(k, data["shape"]))) for k in wrong[:6]) + " differ"
    notes = ([f"your answer involves {', '.join(extra)}, which the right one does not"] if extra else []) + \
        ([f"the right one involves {', '.join(missing)}, which yours does not"] if missing else [])
    return where + ("; " + "; ".join(notes) if notes else "")


@contextmanager
def _without(functions, namespace):
    """While the reader's function runs, the dynlib functions it must not use raise instead."""
    functions = [f for f in functions if callable(f)]
    if not functions:
        yield
        return

    def refuse(f):
        def refused(*args, **kwargs):
            raise ExerciseFeedback(f"this exercise asks you to write it without `{f.__name__}`; "
                                   "use the lower-level functions the statement allows.")
        return refused

    patched = []
    # the names a reader reaches (dl.f, dl.kernels.f, dl.algorithms.f, and what the cell imported), not the
    # modules inside dynlib, whose own calls must keep working (kernels run as Python until compiled)
    public = ("dynlib", "dynlib.kernels", "dynlib.spatial", "dynlib.multibody", "dynlib.algorithms", "dynlib.course")
    targets = [sys.modules[name].__dict__ for name in public if name in sys.modules]
    targets.append(namespace)
    for target in targets:
        for key, value in list(target.items()):
            if any(value is f for f in functions):
                patched.append((target, key, value))
                target[key] = refuse(value)
    try:
        yield
    finally:
        for target, key, value in patched:
            target[key] = value


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


def check_function(candidate, reference, cases, name=None, rtol=1e-8, hint=None, forbid=()):
    """Call the reader's function and dynlib's on each case and report every disagreement.

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
    forbid : iterable of callables, optional
        dynlib functions the exercise asks the reader to do without: while the reader's function
        runs they raise, wherever the reader reaches them (``dl.rnea``, ``dynlib.algorithms...``, or
        a name bound to them in the notebook).

    Returns
    -------
    None
        Prints one line when every case agrees.

    Raises
    ------
    ExerciseFeedback
        Naming every case that fails (expected against got for numbers; for sympy results
        which entries differ and in which symbols), and the hint.

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
    failures = []
    for k, (label, args) in enumerate(cases, start=1):
        expected = reference(*args)
        where = f"case {k} of {len(cases)} ({label})"
        try:
            with _without(forbid, getattr(candidate, "__globals__", {})):
                got = candidate(*args)
        except ExerciseFeedback:
            raise
        except NotImplementedError:
            message = f"{name} is not written yet: replace `raise NotImplementedError` with your code."
            raise ExerciseFeedback(message) from None
        except Exception as exc:  # the reader's code may fail in any way; report it as feedback
            failures.append(f"{name} raised {type(exc).__name__} on {where}: {exc}")
            continue
        problem = _mismatch(got, expected, rtol)
        if problem:
            message = f"{name} is wrong on {where}: {problem}."
            if not (_symbolic(expected) or _symbolic(got)):  # a formula would give the answer away
                message += f"\n  expected {_show(expected)}\n  got      {_show(got)}"
            failures.append(message)
    if failures:
        summary = f"{len(failures)} of {len(cases)} cases fail:\n" if len(cases) > 1 and len(failures) > 1 else ""
        raise ExerciseFeedback(_with_hint(summary + "\n".join(failures), hint))
    print(f"{name}: all {len(cases)} cases agree with dynlib.")


def check_answer(got, expected, name, rtol=1e-8, hint=None):
    """Check a value the reader derived or predicted, without printing the right one.

    Parameters
    ----------
    got : object
        The reader's answer: number, array, sympy expression or matrix, tuple of these,
        bool or str.  ``...`` or ``None`` means not answered yet.
    expected : object or Fingerprint
        The right answer (computed in the check cell, never shown), or its :class:`Fingerprint`
        (in a student's copy).
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
    if type(expected).__name__ == "Withheld":
        problem = expected.mismatch(got)
        if problem:
            raise ExerciseFeedback(f"{name}: {problem}.")
        print(f"{name}: recorded; a prediction is graded after you hand it in (checked here, it could be found "
              "by trying each choice).")
        return
    problem = _mismatch(got, expected, rtol, detail=False)
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
