"""Kernels: one Python text, run as Python until it is used often, then compiled by numba.

Every algorithm of dynlib has a *door*, which checks its inputs once, and a *kernel*, which trusts
them: a plain loop over the bodies of one state, on arrays indexed by body, in the symbols of the
chapter's algorithm box.  :func:`kernel` registers that text with numba (``register_jitable``), so
that compiled kernels calling it compile it too; the kernel itself stays the plain Python function,
which runs unchanged on numpy object arrays of sympy expressions (exact derivations) and on floats.

:func:`run` calls a kernel for its door.  A kernel runs as Python (about a millisecond a call, no
waiting) for its first :data:`HOT` calls, unless it is given a batch of that many states; then numba compiles
it (seconds, once: the compiled code is cached on disk, where numba's rules say: ``NUMBA_CACHE_DIR``,
beside the sources, or the user's cache directory; where none is writable, it compiles again in each
session, with one warning).  :func:`compile_now` compiles every kernel at its first call instead
(``dynlib.compile_kernels``).  Without numba, or with ``DYNLIB_COMPILE=0``, the kernels always run as
Python, with one warning.

What differs between floats and sympy inside a kernel goes through a few functions defined here or
beside the public function they speed up, each registered with :func:`compiled_as` (numba's
``overload``): the Python version serves sympy and the uncompiled path, the registered one is what
numba compiles.

- ``A @ B`` on float64 arrays of one or two dimensions compiles to plain loops pasted into the kernel:
  the 3- and 6-vectors of the algorithms are far too small for a BLAS call to pay.  The product is
  registered with numba for every caller in the process, so it computes what numba's own product
  does for every pair of shapes, raises numba's errors on mismatched ones, and leaves larger matrix
  products to numba's BLAS call.
- :func:`cos`, :func:`sin`: ``math`` for floats, sympy for expressions.
- :func:`solve_joint`: ``D^-1 rhs`` for a joint's small symmetric positive definite ``D``, by
  Cholesky, or a :class:`SingularJointInertia` naming the joint.

Chapter: *Inverse dynamics* (cost section) and the performance page; the kernels themselves are
listed in the chapters of their algorithms.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import operator
import os
import pathlib
import sys
import warnings

import numpy as np

from .backend import is_symbolic, quoted, quoted_list, solve, solve_spd, sympy_module

__all__ = [
    "COMPILED",
    "HOT",
    "bounded",
    "kernel",
    "run",
    "compile_now",
    "compiled_as",
    "cos",
    "sin",
    "solve_joint",
    "SingularJointInertia",
    "caller_stacklevel",
    "public_kernels",
]

#: True when the kernels can be compiled: numba is installed and ``DYNLIB_COMPILE`` is not ``0``.  numba
#: itself is imported at the first compilation, so that importing dynlib costs no more than its own modules.
COMPILED = os.environ.get("DYNLIB_COMPILE", "1") != "0" and importlib.util.find_spec("numba") is not None
numba = None         # the module, once imported by _numba()
_registry = []       # what to tell numba before it compiles: (register, function, implementation, inline)

#: A kernel runs as Python for this many calls, unless a call brings a batch of this many states.
HOT = 100

_PACKAGE = pathlib.Path(__file__).resolve().parents[1]


def caller_stacklevel():
    """The ``stacklevel`` of ``warnings.warn`` that names the first caller outside dynlib.

    Call it in the function that warns: level 1 is that function, and every frame inside the
    package counts one more.
    """
    frame, level = sys._getframe(1), 1
    inside = str(_PACKAGE) + os.sep
    while frame is not None and frame.f_code.co_filename.startswith(inside):
        frame, level = frame.f_back, level + 1
    return level


def kernel(func=None, *, inline=False):
    """Mark a kernel: the function stays plain Python, and compiled kernels that call it compile its text.

    A kernel is a loop over the bodies of one state in the symbols of its algorithm box; it
    trusts its inputs (its door checked them).  Run it as it is on sympy object arrays, or
    through :func:`run` on floats.

    ``@kernel(inline=True)`` marks a small step (a pose product, a cross product, a body's world
    inertia): the compiler pastes its text into every kernel that calls it, where the small
    arrays it makes and hands back need no bookkeeping of their own (at the price of a longer
    compilation).
    """
    if func is None:
        return lambda func: kernel(func, inline=inline)
    _register(("register_jitable", func, None, inline))
    _kernels.append(func)
    return func


_kernels = []


def public_kernels():
    """Every kernel whose name has no leading underscore, in the order they were defined (``dynlib.kernels``)."""
    return [func for func in _kernels if not func.__name__.startswith("_")]


def compiled_as(public, inline=False):
    """Register a function as what numba compiles in place of ``public`` (a no-op without numba).

    ``public`` keeps serving Python callers; inside a compiled kernel numba calls the registered
    function instead (numba's ``overload``; pasted in with ``inline``, as for :func:`kernel`).
    """
    def register(impl):
        _register(("overload", public, impl, inline))
        return impl
    return register


def _register(entry):
    """Keep a kernel or an overload for numba's first compilation (or register it now, after that)."""
    _registry.append(entry)
    if numba is not None:
        _tell_numba(numba, entry)


def _tell_numba(numba, entry):
    how, func, impl, inline = entry
    inline = "always" if inline else "never"
    if how == "register_jitable":
        numba.extending.register_jitable(inline=inline)(func)
    else:
        numba.extending.overload(func, inline=inline, strict=False)(lambda *args, **kwargs: impl)


def _numba():
    """numba, imported at the first compilation, with dynlib's kernels and products registered; None without it."""
    global numba, COMPILED
    if numba is None and COMPILED:
        try:
            import numba as module
            import numba.extending  # noqa: F401
        except ImportError as err:  # installed but broken: run as Python, and say why
            COMPILED = False
            warnings.warn(f"numba cannot be imported ({err}): dynlib runs its kernels as plain Python",
                          RuntimeWarning, stacklevel=caller_stacklevel())
            return None
        for entry in _registry:
            _tell_numba(module, entry)
        _register_products(module)
        _use_dynlib_locators(module)
        numba = module
    return numba


# ------------------------------------------------------------------------------ running kernels

_runs = {}           # kernel -> states it has run as Python
_compiled = {}       # kernel -> its numba dispatcher
_entries = {}        # (kernel, argument kinds) -> entry point of its compiled version
_settings = {"eager": False, "cache": True, "warned": False}


def compile_now():
    """Compile every kernel at its first call from now on (instead of after :data:`HOT` calls as Python)."""
    _settings["eager"] = True


def _hot(func, states=1):
    """Count a call of ``func`` (on ``states`` states); True when it should run compiled from now on.

    Calls are counted, not states, so that a small batch and single calls of the same kernel switch
    to compiled code at the same call (and give the same numbers: a simulation of an ensemble and of
    one of its members stay equal); a batch of ``HOT`` states or more compiles at once.
    """
    if not COMPILED:
        return False
    _runs[func] = _runs.get(func, 0) + 1
    return (_settings["eager"] or _runs[func] >= HOT or states >= HOT) and _numba() is not None


def _python(func):
    """``func`` as Python: silent while numba waits for it to be used often; with one warning without numba."""
    if not COMPILED and not _settings["warned"]:
        _settings["warned"] = True
        why = "DYNLIB_COMPILE=0 is set" if os.environ.get("DYNLIB_COMPILE") == "0" else "numba is not installed"
        warnings.warn(f"{why}: dynlib runs its kernels as plain Python, correct but many times "
                      "slower (pip install numba, and leave DYNLIB_COMPILE unset, to compile them)",
                      RuntimeWarning, stacklevel=caller_stacklevel())
    return func


def run(kernel_, batch_kernel, m, states, batch=(), symbolic=False):
    """Run a kernel on one state, or its batch function on a batch of states.

    ``states`` are the per-state arrays, each with ``batch`` leading axes; ``m`` (the model's
    arrays) is shared.  A symbolic state runs the kernel's Python text; a float state too, until the
    kernel is used often, and its compiled form after that; a batch is flattened to ``(B, ...)`` for
    ``batch_kernel`` (a loop over the states that calls the kernel), split over the cores when it is
    large and compiled, and its results get the batch axes back.  The calls of a batch count as calls
    of ``kernel_`` (:func:`_hot`).
    """
    if symbolic:
        return kernel_(m, *states)
    if not batch:
        return _entry(kernel_, m, states)
    flat = [_plain(x.reshape((-1,) + x.shape[len(batch):])) for x in states]
    # counted with its kernel: once one of them runs compiled the other does, and they give the same numbers
    if batch_kernel in _compiled or _hot(kernel_ or batch_kernel, flat[0].shape[0]):
        out = _over_cores(_compile(batch_kernel), m, flat)
    else:
        out = _python(batch_kernel)(m, *flat)
    if isinstance(out, tuple):
        return tuple(x.reshape(batch + x.shape[1:]) for x in out)
    return out.reshape(batch + out.shape[1:])


def _entry(kernel_, m, states):
    """Call a kernel on one state: its Python text until it is used often, then its compiled version.

    A compiled call goes through the entry point of the compiled version for these argument types:
    numba's dispatcher works out the type of every argument at every call, which for the model's
    arrays costs microseconds, and the entry point skips that.  Arrays are made C-contiguous and
    writeable (a copy only when they are not), so that one compiled version serves; arguments are
    keyed by their dimensions and Python types, which the doors keep fixed.
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
    if kernel_ not in _compiled and not _hot(kernel_):
        return _python(kernel_)(m, *args)
    function = _compile(kernel_)
    out = function(m, *args)
    signature = tuple(numba.typeof(x) for x in (m, *args))
    if signature in function.overloads:
        _entries[key] = function.overloads[signature].entry_point
    return out


def _compile(func):
    """numba's dispatcher of ``func`` (compiled for float arrays on its first call, releasing the GIL).

    Called once :func:`_hot` has imported numba.
    """
    if func not in _compiled:
        if _settings["cache"]:
            try:
                _compiled[func] = numba.njit(cache=True, nogil=True)(func)
            except RuntimeError as err:  # "cannot cache function ...: no locator available"
                _settings["cache"] = False
                warnings.warn(f"dynlib finds no writable place to cache its compiled kernels ({err}); set "
                              "NUMBA_CACHE_DIR to a writable directory to keep them: without it, each session "
                              "compiles the kernels it uses again", RuntimeWarning, stacklevel=caller_stacklevel())
        if func not in _compiled:
            _compiled[func] = numba.njit(cache=False, nogil=True)(func)
    return _compiled[func]


#: Batches of at least this many states are split over the cores (threads running compiled code).
PARALLEL_BATCH = 128
_pool = []


def _over_cores(function, m, flat):
    """``function(m, *flat)``, in one piece per core for a large batch (compiled code releases the GIL)."""
    workers = min(os.cpu_count() or 1, 8)
    size = flat[0].shape[0]
    if workers < 2 or size < PARALLEL_BATCH:
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


def _bounded_loop(x, largest):
    for value in x:
        if not abs(value) <= largest:
            return False
    return True


_bounded_entry = []


def bounded(x, largest):
    """True when every entry of the float vector ``x`` is finite and at most ``largest`` in magnitude.

    One pass over the entries and no floating-point warnings (an input door's fast path): numpy until
    the doors are used often, a compiled loop after that.
    """
    if _bounded_entry:
        return _bounded_entry[0](x, largest)  # 1-D float64 vectors of any stride, no dispatch
    if _hot(_bounded_loop):
        function = _compile(_bounded_loop)
        signature = (numba.types.Array(numba.types.float64, 1, "A"), numba.types.float64)
        function.compile(signature)
        _bounded_entry.append(function.overloads[signature].entry_point)
    return bool(np.all(np.abs(x) <= largest))


# ------------------------------------------------------------------- where the compiled code is kept


def _source_stamp(numba):
    """A hash of dynlib's sources below the course layer (and numba's version): the date of every cached kernel.

    numba dates a cached kernel by its own file only, but a compiled kernel contains the kernels it
    calls from other files; so a change anywhere in the compiled layers retires every cached kernel.
    """
    digest = hashlib.sha256(numba.__version__.encode())
    for layer in ("core", "spatial", "multibody", "algorithms"):  # not the course layer, which no kernel
        for path in sorted((_PACKAGE / layer).rglob("*.py")):    # reaches, nor the re-exports above the layers
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _use_dynlib_locators(numba):
    """Date dynlib's cached kernels by all of dynlib, in the places numba would keep them.

    numba tries its cache locators in order: ``NUMBA_CACHE_DIR``, the ``__pycache__`` beside the
    source, the user's cache directory; each of them is extended here, for dynlib's files only,
    with the stamp of :func:`_source_stamp`, and put before numba's own, in the same order.
    """
    from numba.core import caching

    stamp = _source_stamp(numba)

    class DatedByDynlib:
        def get_source_stamp(self):
            return stamp

        @classmethod
        def from_function(cls, py_func, py_file):
            inside = os.path.abspath(py_file).startswith(str(_PACKAGE) + os.sep)
            return super().from_function(py_func, py_file) if inside else None

    names = ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")
    bases = [getattr(caching, name, None) or getattr(caching, "_" + name) for name in names]  # private before 0.61
    caching.CacheImpl._locator_classes[:0] = [type(f"Dynlib{name}", (DatedByDynlib, base), {})
                                              for name, base in zip(names, bases)]


# ------------------------------------------------------------------------ floats and sympy


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


# ------------------------------------------------------------------ small products in compiled code

#: Matrix products with more rows or columns than this go to numba's own product (BLAS).
_LARGE = 64


def _register_products(numba):
    """Register the small products with numba (at the first compilation)."""
    from numba import types
    from numba.extending import overload, register_jitable

    # The sums of the products, as separate small functions: the compiler pastes them into the
    # products below, and the products (pasted into the kernels) keep their running sums in registers.

    @register_jitable
    def _row_times_vector(A, r, b):
        acc = 0.0
        for c in range(A.shape[1]):
            acc += A[r, c] * b[c]
        return acc

    @register_jitable
    def _vector_times_column(a, B, c):
        acc = 0.0
        for r in range(B.shape[0]):
            acc += a[r] * B[r, c]
        return acc

    @register_jitable
    def _vector_times_vector(a, b):
        acc = 0.0
        for r in range(a.shape[0]):
            acc += a[r] * b[r]
        return acc

    @register_jitable
    def _row_times_column(A, r, B, c):
        acc = 0.0
        for j in range(A.shape[1]):
            acc += A[r, j] * B[j, c]
        return acc

    @overload(operator.matmul, inline="always")
    def _small_matmul(A, B):
        """``A @ B`` for float64 arrays of one or two dimensions: what numba computes, in plain loops.

        numba's errors for mismatched sizes are raised word for word; other types are left to numba.
        """
        if not (isinstance(A, types.Array) and isinstance(B, types.Array)):
            return None
        if A.dtype != types.float64 or B.dtype != types.float64:
            return None
        if A.ndim == 2 and B.ndim == 1:
            def impl(A, B):
                if A.shape[1] != B.shape[0]:
                    raise ValueError("incompatible array sizes for np.dot(a, b) (matrix * vector)")
                out = np.empty(A.shape[0])
                for r in range(A.shape[0]):
                    out[r] = _row_times_vector(A, r, B)
                return out
            return impl
        if A.ndim == 1 and B.ndim == 2:
            def impl(A, B):
                if A.shape[0] != B.shape[0]:
                    raise ValueError("incompatible array sizes for np.dot(a, b) (vector * matrix)")
                out = np.empty(B.shape[1])
                for c in range(B.shape[1]):
                    out[c] = _vector_times_column(A, B, c)
                return out
            return impl
        if A.ndim == 2 and B.ndim == 2:
            def impl(A, B):
                if A.shape[1] != B.shape[0]:
                    raise ValueError("incompatible array sizes for np.dot(a, b) (matrix * matrix)")
                if A.shape[0] > _LARGE or B.shape[1] > _LARGE:
                    return np.dot(np.ascontiguousarray(A), np.ascontiguousarray(B))
                out = np.empty((A.shape[0], B.shape[1]))
                for r in range(A.shape[0]):
                    for c in range(B.shape[1]):
                        out[r, c] = _row_times_column(A, r, B, c)
                return out
            return impl
        if A.ndim == 1 and B.ndim == 1:
            def impl(A, B):
                if A.shape[0] != B.shape[0]:
                    raise ValueError("incompatible array sizes for np.dot(a, b) (vector * vector)")
                return _vector_times_vector(A, B)
            return impl
        return None
