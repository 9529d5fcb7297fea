"""Kernels: one Python text, compiled by numba for floats and run as Python for sympy.

Every algorithm of dynlib has a *door*, which checks its inputs once, and a *kernel*, which trusts
them: a plain loop over the bodies of one state, on arrays indexed by body, in the symbols of the
chapter's algorithm box.  :func:`kernel` compiles that text with numba (cached on disk) when numba
is installed (:func:`compiled`); the kernel itself stays the plain Python function, which runs
unchanged on numpy object arrays of sympy expressions (exact derivations) and on floats when numba
is missing.

What differs between floats and sympy inside a kernel goes through a few functions defined here or
beside the public function they speed up, each registered with :func:`compiled_as`: the Python
version serves sympy (and the uncompiled path), the registered one is what numba compiles.

- ``A @ B`` on float arrays compiles to plain loops pasted into the kernel (:func:`small_matmul`):
  the 3- and 6-vectors of the algorithms are far too small for a BLAS call to pay.
- :func:`cos`, :func:`sin`: ``math`` for floats, sympy for expressions.
- :func:`solve_joint`: ``D^-1 rhs`` for a joint's small symmetric positive definite ``D``, by
  Cholesky, or a :class:`SingularJointInertia` naming the joint.

Chapter: *Inverse dynamics* (cost section) and the performance page; the kernels themselves are
listed in the chapters of their algorithms.
"""

from __future__ import annotations

import hashlib
import inspect
import math
import operator
import os
import pathlib
import warnings

import numpy as np

from .backend import is_symbolic, quoted, quoted_list, solve, solve_spd, sympy_module

__all__ = [
    "COMPILED",
    "bounded",
    "kernel",
    "compiled",
    "run",
    "compiled_as",
    "cos",
    "sin",
    "solve_joint",
    "identity",
    "SingularJointInertia",
    "small_matmul",
]

try:  # the compiler is optional: without it every kernel runs as plain Python
    if os.environ.get("DYNLIB_COMPILE", "1") == "0":
        raise ImportError("DYNLIB_COMPILE=0")
    import numba
    from numba import types as _types
    from numba.extending import overload as _overload
except ImportError:
    numba = None

#: True when the kernels are compiled (numba is installed and ``DYNLIB_COMPILE`` is not ``0``).
COMPILED = numba is not None
_warned = []


def _source_stamp():
    """A hash of dynlib's sources below the course layer (and numba's version): the date of every cached kernel.

    numba dates a cached kernel by its own file only, but a compiled kernel contains the kernels it
    calls from other files; so a change anywhere in the compiled layers retires every cached kernel.
    """
    digest = hashlib.sha256(numba.__version__.encode() if numba is not None else b"")
    for path in sorted(_PACKAGE.rglob("*.py")):
        if path.parent.name not in _NOT_COMPILED:
            digest.update(path.read_bytes())
    return digest.hexdigest()


#: Layers no kernel can reach (they import the algorithms, never the other way): editing them keeps the cache.
_NOT_COMPILED = ("course",)


_PACKAGE = pathlib.Path(__file__).resolve().parents[1]

if numba is not None:
    from numba.core import caching as _caching

    _STAMP = _source_stamp()

    class _DynlibLocatorMixin:
        """Cache dynlib's kernels beside their modules (or in the user's cache), dated by all of dynlib."""

        def get_source_stamp(self):
            return _STAMP

        @classmethod
        def from_function(cls, py_func, py_file):
            inside = os.path.abspath(py_file).startswith(str(_PACKAGE) + os.sep)
            return super().from_function(py_func, py_file) if inside else None

    class _InTreeLocator(_DynlibLocatorMixin, _caching.InTreeCacheLocator):
        pass

    class _UserWideLocator(_DynlibLocatorMixin, _caching.UserWideCacheLocator):
        pass

    _caching.CacheImpl._locator_classes[:0] = [_InTreeLocator, _UserWideLocator]


class _Uncompiled:
    """A kernel without a compiler: calling it runs the Python text, with one warning per session."""

    def __init__(self, func):
        self.py_func = func

    def __call__(self, *args):
        if not _warned:
            _warned.append(True)
            why = "DYNLIB_COMPILE=0 is set" if os.environ.get("DYNLIB_COMPILE") == "0" else "numba is not installed"
            warnings.warn(f"{why}: dynlib runs its kernels as plain Python, correct but many times "
                          "slower (pip install numba, and leave DYNLIB_COMPILE unset, to compile them)",
                          RuntimeWarning, stacklevel=3)
        return self.py_func(*args)


def kernel(func=None, *, inline=False):
    """Mark a kernel: the function stays plain Python, and compiled kernels that call it compile its text.

    A kernel is a loop over the bodies of one state in the symbols of its algorithm box; it
    trusts its inputs (its door checked them).  Run it as it is on sympy object arrays, or
    through :func:`compiled` on floats.

    ``@kernel(inline=True)`` marks a small step (a pose product, a cross product, a body's world
    inertia): the compiler pastes its text into every kernel that calls it, where the small
    arrays it makes and hands back need no bookkeeping of their own (at the price of a longer
    compilation).
    """
    if func is None:
        return lambda func: kernel(func, inline=inline)
    if numba is not None:
        _overload(func, inline="always" if inline else "never")(_typer(func, func))
    return func


_compiled = {}


def compiled(func, parallel=False):
    """The compiled form of a kernel for float arrays (numba, cached on disk, releasing the GIL), made on
    first use.

    Without numba it is the kernel itself, which warns once that it runs uncompiled.  ``parallel``
    would let numba spread a ``numba.prange`` loop over the cores; the batch functions do not use it
    (its compilation costs several times theirs) and are split over the cores by :func:`run` instead.
    """
    key = (func, parallel)
    if key not in _compiled:
        if numba is None:
            _compiled[key] = _Uncompiled(func)
        else:
            _compiled[key] = numba.njit(cache=True, nogil=True, parallel=parallel)(func)
    return _compiled[key]


#: Batches of at least this many states are split over the cores (threads running compiled code).
PARALLEL_BATCH = 128
_pool = []


def run(kernel_, batch_kernel, m, states, batch=(), symbolic=False):
    """Run a kernel on one state, or its batch function on a batch of states.

    ``states`` are the per-state arrays, each with ``batch`` leading axes; ``m`` (the model's
    arrays) is shared.  A symbolic state runs the kernel's Python text; a float state its compiled
    form; a batch is flattened to ``(B, ...)`` for ``batch_kernel`` (a compiled loop over the states
    that calls the kernel), split over the cores when it is large, and its results get the batch
    axes back.
    """
    if symbolic:
        return kernel_(m, *states)
    if not batch:
        return _entry(kernel_, m, states)
    flat = [_plain(x.reshape((-1,) + x.shape[len(batch):])) for x in states]
    out = _over_cores(compiled(batch_kernel), m, flat)
    if isinstance(out, tuple):
        return tuple(x.reshape(batch + x.shape[1:]) for x in out)
    return out.reshape(batch + out.shape[1:])


_entries = {}


def _entry(kernel_, m, states):
    """Call the compiled kernel through the entry point of its compiled version for these argument types.

    numba's dispatcher works out the type of every argument at every call, which for the model's
    arrays costs microseconds; the entry point of a compiled version skips that.  Arrays are made
    C-contiguous and writeable (a copy only when they are not), so that one compiled version serves;
    arguments are keyed by their dimensions and Python types, which the doors keep fixed.
    """
    key, args = [kernel_], []
    for x in states:  # _plain and the key in one pass: calling _plain per argument costs 0.4 us each
        if type(x) is np.ndarray:
            flags = x.flags
            if not (flags.c_contiguous and flags.writeable):
                x = np.array(x, order="C")
            key.append(x.ndim)
        else:
            key.append(type(x))
        args.append(x)
    key = tuple(key)
    entry = _entries.get(key)
    if entry is not None:
        return entry(m, *args)
    function = compiled(kernel_)
    out = function(m, *args)
    if COMPILED:
        signature = tuple(numba.typeof(x) for x in (m, *args))
        if signature in function.overloads:
            _entries[key] = function.overloads[signature].entry_point
    return out


def _over_cores(function, m, flat):
    """``function(m, *flat)``, in one piece per core for a large batch (compiled code releases the GIL)."""
    workers = min(os.cpu_count() or 1, 8)
    size = flat[0].shape[0]
    if not COMPILED or workers < 2 or size < PARALLEL_BATCH:
        return function(m, *flat)
    if not _pool:
        from concurrent.futures import ThreadPoolExecutor

        _pool.append(ThreadPoolExecutor(workers - 1))
    if not function.signatures:  # compile here, on one state, before the threads start
        function(m, *(x[:1] for x in flat))
    bounds = np.linspace(0, size, workers + 1).astype(int)
    pieces = [tuple(x[bounds[k] : bounds[k + 1]] for x in flat) for k in range(workers)]
    others = [_pool[0].submit(function, m, *piece) for piece in pieces[1:]]
    parts = [function(m, *pieces[0])] + [future.result() for future in others]
    if isinstance(parts[0], tuple):
        return tuple(np.concatenate(piece) for piece in zip(*parts))
    return np.concatenate(parts)


def _plain(x):
    """``x`` as a C-contiguous writeable array (a copy only when it is not), so that one compiled version serves."""
    if type(x) is not np.ndarray or (x.flags.c_contiguous and x.flags.writeable):
        return x
    return np.array(x, order="C")


def bounded(x, largest):
    """True when every entry of the float vector ``x`` is finite and at most ``largest`` in magnitude.

    One pass over the entries and no floating-point warnings (an input door's fast path).
    """
    return bool(np.all(np.abs(x) <= largest))


if numba is not None:

    @numba.njit(cache=True, nogil=True)
    def _bounded(x, largest):
        for value in x:
            if not abs(value) <= largest:
                return False
        return True

    _bounded_entry = []

    def bounded(x, largest):  # noqa: F811
        if not _bounded_entry:  # compiled on first use, after every overload is registered
            signature = (_types.Array(_types.float64, 1, "A"), _types.float64)
            _bounded.compile(signature)
            _bounded_entry.append(_bounded.overloads[signature].entry_point)
        return _bounded_entry[0](x, largest)  # 1-D float64 vectors of any stride, no dispatch


def compiled_as(public, inline=False):
    """Register a function as what numba compiles in place of ``public`` (a no-op without numba).

    ``public`` keeps serving Python callers; inside a compiled kernel numba calls the
    registered function instead, for float arguments (pasted in with ``inline``, as for
    :func:`kernel`).
    """
    def register(impl):
        if numba is not None:
            _overload(public, inline="always" if inline else "never")(_typer(public, impl))
        return impl
    return register


def _typer(public, impl):
    """numba's typing function for an overload of ``public``: same parameters, returns ``impl``."""
    namespace = {"impl": impl}
    exec(f"def typer{inspect.signature(public)}:\n    return impl", namespace)  # noqa: S102
    return namespace["typer"]


def cos(x):
    """Cosine of a float or a sympy expression (one number)."""
    return sympy_module().cos(x) if is_symbolic(x) else math.cos(x)


def sin(x):
    """Sine of a float or a sympy expression (one number)."""
    return sympy_module().sin(x) if is_symbolic(x) else math.sin(x)


@compiled_as(cos, inline=True)
def _cos(x):
    return math.cos(x)


@compiled_as(sin, inline=True)
def _sin(x):
    return math.sin(x)


class SingularJointInertia(ValueError):
    """A joint's ``D = s^T I s`` is not positive definite: what moves along the joint has no inertia.

    ``joint`` is the index of the joint (and of its body); ``D`` the matrix, when the Python text
    raised it (compiled code knows only the index).  The algorithm's door turns it into an error
    message that says what it means there (:meth:`message`).
    """

    def __init__(self, joint, D=None):
        super().__init__(joint)
        self.joint, self.D = joint, D

    def message(self, what, meaning, rerun=None):
        """``what`` (with ``{j}`` for the joint) has rank r, expected k (eigenvalues ...): ``meaning``.

        ``rerun`` is a function that repeats the failing call as Python, to recover ``D`` when
        the compiled code raised.
        """
        D = self.D
        if D is None and rerun is not None:
            try:
                rerun()
            except SingularJointInertia as err:
                D = err.D
        what = what.format(j=self.joint)
        if D is None or is_symbolic(D):
            return f"{what} is not positive definite: {meaning.format(j=self.joint)}"
        eig = np.linalg.eigvalsh((D + D.T) / 2) if np.all(np.isfinite(D)) else np.full(len(D), np.nan)
        largest = eig[-1] if eig.size and eig[-1] > 0 else 0.0
        rank = int(np.sum(eig > 1e-12 * largest)) if largest > 0 else 0
        relative = f", smallest/largest {quoted(eig[0] / largest, 1e-12)}" if largest > 0 else ""
        return (f"{what} has rank {rank}, expected {len(eig)} (eigenvalues {quoted_list(eig, 1e-12 * largest, 3)}"
                f"{relative}): {meaning.format(j=self.joint)}")


def solve_joint(D, rhs, joint):
    """``D^-1 rhs`` for the small symmetric positive definite ``D = s^T I s`` of joint ``joint``.

    ``rhs`` is a vector or a matrix with ``D.shape[0]`` rows.  Raises :class:`SingularJointInertia`
    when ``D`` has lost rank (an eigenvalue at most ``1e-12`` of the largest; exact sympy LDL for
    symbols).
    """
    if D.shape[0] == 0:
        return rhs.copy()
    if not is_symbolic(D) and np.all(np.isfinite(D)):
        eig = np.linalg.eigvalsh((D + D.T) / 2)
        if not eig[0] > 1e-12 * max(eig[-1], 0.0) or not eig[-1] > 0:
            raise SingularJointInertia(joint, D)
    try:
        return solve_spd(D, rhs, f"D = s^T I s of joint {joint}")
    except ValueError:
        raise SingularJointInertia(joint, D) from None


@compiled_as(solve_joint)
def _solve_joint(D, rhs, joint):
    """Cholesky ``D = L L^T`` in plain loops (``D`` is at most 6 x 6), then two triangular solves."""
    k = D.shape[0]
    if k == 0:
        return rhs.copy()
    L = np.zeros((k, k))
    scale = 0.0
    for r in range(k):
        scale = max(scale, abs(D[r, r]))
    for r in range(k):
        for c in range(r + 1):
            acc = D[r, c]
            for j in range(c):
                acc -= L[r, j] * L[c, j]
            if r == c:
                if not acc > 1e-12 * scale:
                    raise SingularJointInertia(joint)
                L[r, r] = math.sqrt(acc)
            else:
                L[r, c] = acc / L[c, c]
    x = rhs.copy()
    flat = x.reshape((k, -1))
    for col in range(flat.shape[1]):
        for r in range(k):
            acc = flat[r, col]
            for j in range(r):
                acc -= L[r, j] * flat[j, col]
            flat[r, col] = acc / L[r, r]
        for r in range(k - 1, -1, -1):
            acc = flat[r, col]
            for j in range(r + 1, k):
                acc -= L[j, r] * flat[j, col]
            flat[r, col] = acc / L[r, r]
    return x


@compiled_as(solve)
def _solve_compiled(A, b, what="matrix"):
    return np.linalg.solve(A, b)


@kernel
def identity(n, like):
    """The n x n identity with the dtype of ``like``: floats, or exact integer ones for sympy arrays."""
    E = np.zeros((n, n), dtype=like.dtype)
    for k in range(n):
        E[k, k] = 1
    return E


def small_matmul(A, B):
    """``A @ B`` as numba compiles it for float arrays of the algorithms' small sizes: plain loops.

    Matrix-vector, vector-matrix, matrix-matrix and dot products of float64 arrays; larger
    products (over 64 entries on a side) go to numpy's BLAS.
    """
    return A @ B


if numba is not None:

    # The sums of the products, as separate small functions: the compiler pastes them into the
    # products below, and the products (pasted into the kernels) keep their running sums in registers.

    @numba.njit(cache=True, nogil=True)
    def _row_times_vector(A, r, b):
        acc = 0.0
        for c in range(A.shape[1]):
            acc += A[r, c] * b[c]
        return acc

    @numba.njit(cache=True, nogil=True)
    def _vector_times_column(a, B, c):
        acc = 0.0
        for r in range(B.shape[0]):
            acc += a[r] * B[r, c]
        return acc

    @numba.njit(cache=True, nogil=True)
    def _vector_times_vector(a, b):
        acc = 0.0
        for r in range(a.shape[0]):
            acc += a[r] * b[r]
        return acc

    @numba.njit(cache=True, nogil=True)
    def _row_times_column(A, r, B, c):
        acc = 0.0
        for j in range(A.shape[1]):
            acc += A[r, j] * B[j, c]
        return acc

    @_overload(operator.matmul, inline="always")
    def _matmul_overload(A, B):
        if not (isinstance(A, _types.Array) and isinstance(B, _types.Array)):
            return None
        if A.dtype != _types.float64 or B.dtype != _types.float64:
            return None
        if A.ndim == 2 and B.ndim == 1:
            def impl(A, B):
                out = np.empty(A.shape[0])
                for r in range(A.shape[0]):
                    out[r] = _row_times_vector(A, r, B)
                return out
            return impl
        if A.ndim == 1 and B.ndim == 2:
            def impl(A, B):
                out = np.empty(B.shape[1])
                for c in range(B.shape[1]):
                    out[c] = _vector_times_column(A, B, c)
                return out
            return impl
        if A.ndim == 2 and B.ndim == 2:
            def impl(A, B):
                if A.shape[0] > 64 or B.shape[1] > 64:
                    return np.dot(np.ascontiguousarray(A), np.ascontiguousarray(B))
                out = np.empty((A.shape[0], B.shape[1]))
                for r in range(A.shape[0]):
                    for c in range(B.shape[1]):
                        out[r, c] = _row_times_column(A, r, B, c)
                return out
            return impl
        if A.ndim == 1 and B.ndim == 1:
            def impl(A, B):
                return _vector_times_vector(A, B)
            return impl
        return None
