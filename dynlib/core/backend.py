"""The few places where numeric (float) and symbolic (sympy) arrays differ.

Every public function of dynlib accepts either float arrays or numpy object
arrays holding sympy expressions.  Arithmetic and ``@`` work on both; only
elementary functions, linear solves and input checks need a dispatch, and it
lives here.  sympy is imported lazily so that numeric users never pay for it.

Chapter: every chapter (the exact derivations and the numerics share it).
"""

from __future__ import annotations

import math
import sys

import numpy as np

__all__ = [
    "as_array",
    "is_symbolic",
    "zeros",
    "eye",
    "check_shape",
    "as_vector",
    "magnitude",
    "quoted",
    "quoted_list",
    "is_exactly_zero",
    "check_spd_matrix",
    "check_finite",
    "check_magnitude",
    "check_scalar",
    "float_entries",
    "as_finite",
    "as_spd_matrix",
    "broadcast_batch",
    "check_result",
    "check_index",
    "check_rng",
    "check_rotation",
    "sympy_module",
    "simplify",
    "exact",
    "promote",
    "solve",
    "solve_spd",
    "matvec",
    "to_sympy",
    "from_sympy",
    "LARGEST_MAGNITUDE",
    "cos",
    "sin",
    "sqrt",
    "acos",
]


def as_array(x, name="x"):
    """Return ``x`` as a float array, or as an object array if it holds sympy expressions."""
    if type(x) is np.ndarray and x.dtype == np.float64:  # the common case, at no cost
        return x
    try:
        a = np.asarray(x)
    except ValueError:  # a ragged sequence
        raise ValueError(f"{name} must be a rectangular array of numbers, got a ragged sequence") from None
    if a.dtype == object and a.size == 0:  # nothing symbolic in it
        return a.astype(float)
    if a.dtype == object:
        for entry in a.flat:
            if not _is_scalar(entry):
                raise TypeError(f"{name} must hold real numbers or sympy expressions, got an entry {entry!r}")
        return a
    if a.dtype.kind in "iuf":
        return a.astype(float, copy=False)
    if a.dtype.kind == "b":
        raise TypeError(f"{name} must hold real numbers or sympy expressions, got booleans (True/False are not "
                        "numbers here)")
    raise TypeError(f"{name} must hold real numbers or sympy expressions, got dtype {a.dtype}")


def _is_scalar(x):
    """True for a real number or a sympy expression (the entries an object array may hold); False for a bool."""
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, (int, float, np.integer, np.floating)):
        return True
    sympy = sys.modules.get("sympy")
    return sympy is not None and isinstance(x, sympy.Basic)


def is_symbolic(*arrays):
    """True if any argument is an object array or a sympy expression."""
    sympy = sys.modules.get("sympy")  # a sympy object implies sympy was imported
    for a in arrays:
        if isinstance(a, np.ndarray):
            if a.dtype == object:
                return True
        elif sympy is not None and isinstance(a, sympy.Basic):
            return True
    return False


def zeros(shape, symbolic):
    """Zeros of the given shape: float, or object (exact integer zeros) when symbolic."""
    return np.zeros(shape, dtype=object if symbolic else float)


def eye(n, symbolic):
    """Identity matrix, float or object."""
    return np.eye(n, dtype=object if symbolic else float)


def check_shape(a, shape, name):
    """Raise ValueError unless ``a.shape`` ends with ``shape`` (leading batch axes allowed)."""
    k = len(shape)
    if a.ndim < k or a.shape[a.ndim - k:] != tuple(shape):
        want = "(..., " + ", ".join(map(str, shape)) + ")"
        raise ValueError(f"{name} must have shape {want}, got {a.shape}")


def as_vector(x, n, name):
    """``x`` as an array of shape (..., n), or a ValueError naming ``name``."""
    x = as_array(x, name)
    check_shape(x, (n,), name)
    return x


def magnitude(x):
    """Size of the entries of a numeric array, for relative tolerances (never zero)."""
    return max(float(np.abs(x).max(initial=0.0)), np.finfo(float).tiny)


def quoted(x, floor=0.0, digits=1):
    """A number as an error message quotes it: ``digits`` significant figures (one by default), or
    ``below <floor>`` when ``|x| <= floor``.

    Below a round-off floor the digits of a result change with the machine's BLAS kernel; a
    message that a notebook prints (and nbval compares) must say the same thing everywhere.
    ``floor`` is the tolerance the caller decides with, so "below 1e-10" also says why the value
    counts as zero.
    """
    x = float(x)
    if floor > 0 and abs(x) <= floor:
        return f"below {floor:.0e}"
    return f"{x:.{digits}g}"


def quoted_list(values, floor=0.0, digits=1):
    """``[a, b, ...]`` of :func:`quoted` numbers, for eigenvalues and principal moments."""
    return "[" + ", ".join(quoted(v, floor, digits) for v in np.ravel(values)) + "]"


def is_exactly_zero(x):
    """Entrywise: is a symbolic ``x`` exactly zero after simplification (floats such as 0.0 count)?"""
    sp = sympy_module()
    zero = np.vectorize(lambda e: sp.simplify(sp.sympify(e)).is_zero is True, otypes=[bool])
    return zero(np.asarray(x, dtype=object))


def check_spd_matrix(I, n, name="I"):
    """Raise ValueError unless ``I`` is an n×n symmetric positive definite matrix (exactly symmetric if symbolic)."""
    if I.shape != (n, n):
        raise ValueError(f"{name} must have shape ({n}, {n}), got {I.shape}")
    if is_symbolic(I):
        if not np.all(is_exactly_zero(I - I.T)):
            raise ValueError(f"{name} must be symmetric")
        return
    if not np.allclose(I, I.T, rtol=0, atol=1e-12 * magnitude(I)):
        raise ValueError(f"{name} must be symmetric")
    eig = np.linalg.eigvalsh(I)
    if eig[0] <= 1e-12 * magnitude(I):
        raise ValueError(f"{name} must be positive definite; its eigenvalues are "
                         f"{quoted_list(eig, 1e-12 * magnitude(I))}")


def check_finite(a, name):
    """Raise ValueError if a numeric array holds NaN or infinity."""
    if a.dtype != object and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite, got {a}")


#: Largest magnitude accepted in a joint-space vector, an external wrench, a mass or a centre of
#: mass: far beyond any physical value, and small enough that the products the algorithms form
#: (up to about the seventh power of such numbers) stay inside double precision instead of
#: overflowing to infinity.
LARGEST_MAGNITUDE = 1e40


def check_magnitude(a, name):
    """Raise ValueError unless a numeric array is finite with entries of magnitude at most ``LARGEST_MAGNITUDE``."""
    if a.dtype == object or not a.size:
        return
    largest = np.abs(a).max()
    if not largest <= LARGEST_MAGNITUDE:  # NaN, infinity or too large: one comparison on the fast path
        check_finite(a, name)
        raise ValueError(
            f"{name} must have entries of magnitude at most {LARGEST_MAGNITUDE:g} (larger ones overflow), "
            f"got {largest:g}"
        )


def check_scalar(x, name, low=None, high=None, allow_inf=False):
    """Raise unless ``x`` is one real number in ``[low, high]``, finite unless ``allow_inf``.

    The bounds apply to finite values (``allow_inf`` admits both infinities, an infinite pitch
    say).  Sympy expressions pass unchecked.  Returns ``x`` unchanged.
    """
    if is_symbolic(x):
        return x
    a = np.asarray(None if isinstance(x, (str, bytes)) else x)
    if a.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a real number, got {x!r}" + (" (a bool)" if a.dtype.kind == "b" else ""))
    if a.ndim != 0:
        raise ValueError(f"{name} must be a single number, got shape {a.shape}")
    value = float(a)
    if np.isnan(value) or (np.isinf(value) and not allow_inf):
        raise ValueError(f"{name} must be finite, got {value}")
    if np.isfinite(value) and low is not None and value < low:
        raise ValueError(f"{name} must be at least {low:g}, got {value}")
    if np.isfinite(value) and high is not None and value > high:
        raise ValueError(f"{name} must be at most {high:g}, got {value}")
    return x


def float_entries(x):
    """The numbers of an array to check for finiteness: ``x`` itself if numeric, else the floats it holds.

    A sympy (object) array may hold float entries beside its expressions (a NaN among symbols).
    """
    if x.dtype != object:
        return x
    return np.array([e for e in x.flat if isinstance(e, (float, np.floating))], dtype=float)


def as_finite(x, shape, name, batch=True):
    """``x`` as an array of shape ``(..., *shape)`` with finite entries of magnitude at most ``LARGEST_MAGNITUDE``.

    The usual check of an array argument: :func:`as_array`, :func:`check_shape` (exactly
    ``shape`` unless ``batch``) and :func:`check_magnitude` (of the float entries of a sympy
    array; expressions pass unchecked).
    """
    x = as_array(x, name)
    if batch:
        check_shape(x, shape, name)
    elif x.shape != tuple(shape):
        raise ValueError(f"{name} must have shape {tuple(shape)}, got {x.shape}")
    check_magnitude(float_entries(x), name)
    return x


def as_spd_matrix(I, n, name="I"):
    """``I`` as an n×n finite symmetric positive definite array (see :func:`check_spd_matrix`)."""
    I = as_array(I, name)
    check_magnitude(float_entries(I), name)
    check_spd_matrix(I, n, name)
    return I


def broadcast_batch(*arrays):
    """The broadcast of the leading (batch) axes of arrays, or a ValueError naming them.

    Parameters
    ----------
    *arrays : (ndarray, int, str) triples
        Each array, the number of its trailing axes that hold one item (1 for a vector,
        2 for a matrix), and its name.

    Returns
    -------
    tuple of int
        ``()`` when no array has batch axes.
    """
    shapes = [(a.shape[: a.ndim - core], name) for a, core, name in arrays]
    distinct = {shape for shape, _ in shapes if shape}
    if len(distinct) <= 1:  # the common case, without numpy's slower general rule
        return distinct.pop() if distinct else ()
    try:
        return np.broadcast_shapes(*(shape for shape, _ in shapes))
    except ValueError:
        given = ", ".join(f"{name} {shape}" for shape, name in shapes if shape)
        raise ValueError(f"the leading (batch) axes must broadcast, got {given}") from None


def check_result(result, *inputs):
    """Return a numeric ``result`` if it is finite, else raise ValueError naming the input to blame.

    Cheap: it sums the result once (a sum of finite entries that overflows by itself is a
    false alarm, settled by a full test).  NaN or infinity in an input, or an overflow from
    inputs larger than ``LARGEST_MAGNITUDE``, raises ValueError naming the input.  The
    primitives that run once per body (cross products, ``skew``) test a sum of their few
    results in plain Python first and call this only when that sum is not finite.

    Parameters
    ----------
    result : ndarray
    *inputs : (ndarray, str) pairs
        The arguments and their names.
    """
    if result.dtype == object:  # symbolic: only float entries of the inputs can be NaN or infinite
        for a, name in inputs:
            check_magnitude(float_entries(a), name)
        return result
    if math.isfinite(np.add.reduce(result.ravel())) or np.isfinite(result).all():  # NaN or inf makes the sum so
        return result
    for a, name in inputs:
        check_magnitude(a, name)
    names = " and ".join(name for _, name in inputs)
    raise ValueError(f"{names} are too large: the result overflows")


def check_index(i, n, name):
    """Raise unless ``i`` is an int (not a bool) in ``[0, n)``."""
    if not isinstance(i, (int, np.integer)) or isinstance(i, bool) or not 0 <= i < n:
        raise ValueError(f"{name} must be an index in [0, {n}), got {i!r}")


def check_rng(rng, name="rng"):
    """Raise TypeError unless ``rng`` is a ``numpy.random.Generator``."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator (numpy.random.default_rng(seed)), got {type(rng).__name__}"
        )


def check_rotation(R, name="R", tol=1e-6):
    """Raise ValueError unless a numeric ``R`` of shape (..., 3, 3) is finite, orthonormal and of determinant +1.

    ``tol`` bounds ``|R^T R - 1|`` entrywise; symbolic matrices are checked for shape only.
    """
    check_shape(R, (3, 3), name)
    if R.dtype == object:
        return
    check_finite(R, name)
    largest = np.abs(R).max(initial=0.0)
    if not largest <= 1 + tol:  # a rotation's entries are direction cosines; larger ones would overflow R^T R
        given = R.tolist() if R.ndim == 2 else f"a batch of shape {R.shape}"
        raise ValueError(f"{name} must be a rotation matrix (orthonormal, det +1), got {given} (an entry of "
                         f"magnitude {quoted(largest)}, where a rotation's are at most 1)")
    error = np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max(initial=0.0)
    if not error <= tol or np.any(np.linalg.det(R) < 0):
        given = R.tolist() if R.ndim == 2 else f"a batch of shape {R.shape}"
        raise ValueError(
            f"{name} must be a rotation matrix (orthonormal, det +1), got {given} (|R^T R - 1| = {quoted(error)})"
        )


def sympy_module():
    """The sympy module, imported on first use (numeric users never pay for it)."""
    import sympy

    return sympy


def _elementwise(name, np_func):
    def func(x):
        if is_symbolic(x):
            f = getattr(sympy_module(), name)
            if isinstance(x, np.ndarray):
                out = np.empty(x.shape, dtype=object)
                for idx in np.ndindex(x.shape):
                    out[idx] = f(x[idx])
                return out
            return f(x)
        return np_func(x)

    func.__name__ = name
    func.__doc__ = f"``{name}`` for floats (numpy) or sympy expressions."
    return func


cos = _elementwise("cos", np.cos)
sin = _elementwise("sin", np.sin)
sqrt = _elementwise("sqrt", np.sqrt)
acos = _elementwise("acos", lambda x: np.arccos(np.clip(x, -1.0, 1.0)))


def simplify(a):
    """Simplify every entry of a symbolic array (returns numeric arrays unchanged)."""
    if not is_symbolic(a):
        return a
    sp = sympy_module()
    if isinstance(a, np.ndarray):
        out = np.empty(a.shape, dtype=object)
        for idx in np.ndindex(a.shape):
            out[idx] = sp.simplify(a[idx])
        return out
    return sp.simplify(a)


def exact(a):
    """An object array with every float replaced by the simplest rational it represents.

    Used when numeric model data (axes, placements) meet sympy symbols, so that
    results read ``w1`` rather than ``1.0*w1``.
    """
    sp = sympy_module()
    a = np.asarray(a)
    out = np.empty(a.shape, dtype=object)
    for idx in np.ndindex(a.shape):
        x = a[idx]
        if isinstance(x, (float, np.floating)):
            out[idx] = sp.nsimplify(float(x), rational=True)
        elif isinstance(x, (int, np.integer)):
            out[idx] = sp.Integer(int(x))
        else:
            out[idx] = x
    return out


def promote(*arrays):
    """The arrays unchanged if all are numeric; otherwise each made exact (see :func:`exact`)."""
    if not is_symbolic(*arrays):
        return arrays
    return tuple(exact(a) for a in arrays)


def solve(A, b, what="matrix"):
    """Solve ``A x = b`` for a small square ``A`` (numpy LU, or exact sympy LU).

    ``b`` may be a vector or a matrix.  A singular numeric ``A`` raises ValueError
    naming ``what`` instead of returning infinities.
    """
    if is_symbolic(A, b):
        sp = sympy_module()
        b = np.asarray(b, dtype=object)
        x = sp.simplify(to_sympy(A).LUsolve(to_sympy(b)))
        return from_sympy(x, b.shape)
    try:
        x = np.linalg.solve(A, b)
    except np.linalg.LinAlgError:
        raise ValueError(f"{what} is singular") from None
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{what} is singular (the solve produced non-finite values)")
    return x


def solve_spd(A, b, what="matrix"):
    """Solve ``A x = b`` for a symmetric positive definite ``A`` by Cholesky (or exact sympy LDL).

    Numeric ``A`` may carry leading batch axes, ``(..., k, k)`` with ``b`` of shape
    ``(..., k)`` or ``(..., k, m)``.  A numeric ``A`` that is not positive definite raises
    ValueError naming ``what``.
    """
    if is_symbolic(A, b):
        sp = sympy_module()
        b = np.asarray(b, dtype=object)
        x = sp.simplify(to_sympy(A).LDLsolve(to_sympy(b)))
        return from_sympy(x, b.shape)
    vector = b.ndim == A.ndim - 1
    if A.shape[-1] == 1:  # one degree of freedom: a division
        if not (A > 0).all():
            raise ValueError(f"{what} is not positive definite (smallest value {quoted(np.min(A))})")
        return b / A[..., 0] if vector else b / A
    from scipy.linalg import cho_factor, cho_solve

    try:
        if A.ndim > 2 or A.shape[0] <= 6:  # batches, and a joint's D: numpy's stacked small-matrix routines
            np.linalg.cholesky(A)  # raises unless positive definite
            return np.linalg.solve(A, b[..., None])[..., 0] if vector else np.linalg.solve(A, b)
        return cho_solve(cho_factor(A), b)
    except np.linalg.LinAlgError:
        if not np.all(np.isfinite(A)):
            raise ValueError(f"{what} is not positive definite (it is not finite)") from None
        eig = np.linalg.eigvalsh((A + np.swapaxes(A, -1, -2)) / 2)
        eig = quoted_list(eig, 1e-12 * magnitude(eig))
        raise ValueError(f"{what} is not positive definite (eigenvalues {eig})") from None


def matvec(A, x):
    """``A @ x`` for stacks: ``A`` of shape (..., m, k), ``x`` of shape (..., k), batch axes broadcast.

    (``A @ x`` alone would treat a batch of vectors ``x`` of shape (B, k) as one matrix.)
    """
    return (A @ x[..., None])[..., 0]


def to_sympy(a):
    """An object array as a sympy Matrix (1-D arrays become column vectors)."""
    sp = sympy_module()
    return sp.Matrix(np.asarray(a).tolist())


def from_sympy(m, shape=None):
    """A sympy Matrix as an object array (optionally reshaped)."""
    out = np.array(m.tolist(), dtype=object)
    return out.reshape(shape) if shape is not None else out
