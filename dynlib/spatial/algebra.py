"""Spatial (6-D) vector algebra, linear part first.

A motion vector (twist) is ``[v_O; w]`` and a force vector (wrench) is
``[f; n_O]``, both in Plücker coordinates about the origin O of the frame
they are expressed in; power is ``twist @ wrench``.  All functions accept
leading batch axes, ``(..., 6)``, and sympy object arrays.  Numeric inputs must be finite;
the functions that run once per body in the dynamics algorithms (``skew`` and the cross
products) check that with one test of a sum on their fast path.

Chapter: *Screws, twists and wrenches*; Alexiou (1999) "Spatial Transformations";
Lecture 4 "Spatial cross product"; Featherstone (2008) ch. 2.
"""

from __future__ import annotations

import numpy as np

from ..core.backend import (
    as_array,
    as_finite,
    broadcast_batch,
    check_finite,
    check_magnitude,
    check_result,
    check_rotation,
    check_shape,
    float_entries,
    is_symbolic,
    promote,
    quoted,
    zeros,
)
from ..core.compile import compiled_as, kernel

__all__ = [
    "skew",
    "unskew",
    "cross3",
    "crm",
    "crf",
    "cross_motion",
    "cross_force",
    "motion_transform",
    "force_transform",
    "inverse_transform",
    "check_transform",
]

def skew(w):
    """Cross-product matrix: ``skew(w) @ x == cross(w, x)``.

    Parameters
    ----------
    w : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3, 3)
        Skew-symmetric matrix ``[[0, -z, y], [z, 0, -x], [-y, x, 0]]``.

    Examples
    --------
    >>> import numpy as np
    >>> bool(np.allclose(skew([1, 2, 3]) @ [4, 5, 6], np.cross([1, 2, 3], [4, 5, 6])))
    True
    """
    w = as_array(w, "w")
    check_shape(w, (3,), "w")
    if w.shape == (3,) and w.dtype == float:  # one float vector: build it directly
        x, y, z = w.tolist()
        if (x + y + z) * 0.0 != 0.0:  # NaN or infinity (or a false alarm: the sum overflowed)
            check_finite(w, "w")
        return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return check_result(_skew(w), (w, "w"))


def _skew(w):
    """``skew`` of a (stack of) float or sympy 3-vectors, unchecked."""
    x, y, z = w[..., 0], w[..., 1], w[..., 2]
    S = zeros(w.shape + (3,), is_symbolic(w))
    S[..., 0, 1], S[..., 0, 2] = -z, y
    S[..., 1, 0], S[..., 1, 2] = z, -x
    S[..., 2, 0], S[..., 2, 1] = -y, x
    return S


def unskew(S):
    """The vector ``w`` of a skew-symmetric matrix ``S = skew(w)`` (its skew part if not exact).

    Parameters
    ----------
    S : array_like, shape (..., 3, 3)

    Returns
    -------
    ndarray, shape (..., 3)
    """
    S = as_finite(S, (3, 3), "S")
    return np.stack(
        [S[..., 2, 1] - S[..., 1, 2], S[..., 0, 2] - S[..., 2, 0], S[..., 1, 0] - S[..., 0, 1]],
        axis=-1,
    ) / 2


def cross3(a, b):
    """Cross product of 3-vectors written out (faster than ``np.cross`` and exact for sympy).

    Parameters
    ----------
    a, b : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3)
    """
    return _product(_cross3_parts, as_array(a, "a"), as_array(b, "b"), 3, "a", "b")


@kernel(inline=True)
def _cross3_parts(a, b):
    """The components of ``a x b`` from those of ``a`` and ``b`` (floats, arrays or sympy)."""
    ax, ay, az, bx, by, bz = a[0], a[1], a[2], b[0], b[1], b[2]
    return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx


def _product(parts, a, b, n, a_name, b_name):
    """A product of (stacks of) float or sympy n-vectors given by its components ``parts(a, b)``.

    Shapes are checked, and the result: NaN or infinity in an input always reaches it, so
    :func:`check_result` checks the inputs too (and catches an overflow).  One pair of float
    vectors, as the dynamics algorithms pass once per body, takes plain Python arithmetic and
    one test of a sum.
    """
    if a.shape == b.shape == (n,) and a.dtype == b.dtype == float:
        out = parts(a.tolist(), b.tolist())
        if sum(out) * 0.0 == 0.0:  # finite (else the general path below explains)
            return np.array(out)
    check_shape(a, (n,), a_name)
    check_shape(b, (n,), b_name)
    if a.shape[:-1] != b.shape[:-1]:
        broadcast_batch((a, 1, a_name), (b, 1, b_name))
    out = parts(_components(a), _components(b))
    first = np.asarray(out[0])
    c = np.empty(first.shape + (n,), dtype=object if is_symbolic(a, b) else float)  # faster than np.stack
    for i, x in enumerate(out):
        c[..., i] = x
    return check_result(c, (a, a_name), (b, b_name))


def _components(a):
    """The entries of vectors (..., n) along the last axis: n scalars, or n arrays for a stack."""
    return a if a.ndim == 1 else a.T if a.ndim == 2 else np.moveaxis(a, -1, 0)


def crm(v):
    """Motion cross-product matrix: ``crm(v) @ m`` is the spatial cross product ``v x m``.

    For ``v = [v_O; w]`` (linear first), ``crm(v) = [[skew(w), skew(v_O)], [0, skew(w)]]``.
    It is the derivative of a motion vector fixed in a body moving with twist ``v``.

    Parameters
    ----------
    v : array_like, shape (..., 6)

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Examples
    --------
    >>> import numpy as np
    >>> v = np.arange(1.0, 7.0)
    >>> bool(np.allclose(crm(v) @ v, 0))
    True
    """
    v = as_array(v, "v")
    check_shape(v, (6,), "v")
    check_finite(float_entries(v), "v")
    M = zeros(v.shape + (6,), is_symbolic(v))
    W = skew(v[..., 3:])
    M[..., :3, :3] = W
    M[..., 3:, 3:] = W
    M[..., :3, 3:] = skew(v[..., :3])
    return M


def crf(v):
    """Force cross-product matrix ``crf(v) = -crm(v).T``: ``crf(v) @ f`` is ``v x* f``.

    Parameters
    ----------
    v : array_like, shape (..., 6)

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Examples
    --------
    >>> import numpy as np
    >>> v = np.arange(1.0, 7.0)
    >>> bool(np.allclose(crf(v), -crm(v).T))
    True
    """
    return -np.swapaxes(crm(v), -1, -2)


def cross_motion(v, m):
    """Spatial cross product of motion vectors ``v x m = crm(v) @ m``, without forming ``crm``.

    Parameters
    ----------
    v, m : array_like, shape (..., 6)

    Returns
    -------
    ndarray, shape (..., 6)
    """
    return _product(_motion_parts, as_array(v, "v"), as_array(m, "m"), 6, "v", "m")


@kernel(inline=True)
def _motion_parts(v, m):
    """The components of ``v x m`` (see :func:`_cross3_parts`)."""
    vx, vy, vz, wx, wy, wz = v[0], v[1], v[2], v[3], v[4], v[5]
    lx, ly, lz, ax, ay, az = m[0], m[1], m[2], m[3], m[4], m[5]
    return (
        wy * lz - wz * ly + vy * az - vz * ay,
        wz * lx - wx * lz + vz * ax - vx * az,
        wx * ly - wy * lx + vx * ay - vy * ax,
        wy * az - wz * ay,
        wz * ax - wx * az,
        wx * ay - wy * ax,
    )


def cross_force(v, f):
    """Spatial cross product of a motion and a force vector ``v x* f = crf(v) @ f``.

    Parameters
    ----------
    v, f : array_like, shape (..., 6)

    Returns
    -------
    ndarray, shape (..., 6)
    """
    return _product(_force_parts, as_array(v, "v"), as_array(f, "f"), 6, "v", "f")


@kernel(inline=True)
def _force_parts(v, f):
    """The components of ``v x* f`` (see :func:`_cross3_parts`)."""
    vx, vy, vz, wx, wy, wz = v[0], v[1], v[2], v[3], v[4], v[5]
    fx, fy, fz, nx, ny, nz = f[0], f[1], f[2], f[3], f[4], f[5]
    return (
        wy * fz - wz * fy,
        wz * fx - wx * fz,
        wx * fy - wy * fx,
        vy * fz - vz * fy + wy * nz - wz * ny,
        vz * fx - vx * fz + wz * nx - wx * nz,
        vx * fy - vy * fx + wx * ny - wy * nx,
    )


def motion_transform(R, p):
    """Plücker transform ``X_AB`` of motion vectors from frame B to frame A.

    Frame B has orientation ``R`` (columns: B's axes in A) and origin ``p`` (in A).
    A twist ``m_B`` expressed in B becomes ``m_A = X_AB @ m_B`` with
    ``X_AB = [[R, skew(p) R], [0, R]]``.  Composition is the matrix product,
    ``X_AC = X_AB @ X_BC``; see :func:`inverse_transform` for ``X_BA``.

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
    p : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 6, 6)

    References
    ----------
    Alexiou (1999) "Spatial Transformations" (there written as ``P X_Q``).

    Examples
    --------
    >>> import numpy as np
    >>> X = motion_transform(np.eye(3), [1.0, 0.0, 0.0])
    >>> twist_B = np.array([0, 0, 0, 0, 0, 1.0])   # unit rotation about B's z axis
    >>> bool(np.allclose(X @ twist_B, [0, -1, 0, 0, 0, 1]))  # seen from A: r x w = -y
    True
    """
    R, p = as_array(R, "R"), as_array(p, "p")
    check_rotation(R, "R")
    check_shape(p, (3,), "p")
    batch = broadcast_batch((R, 2, "R"), (p, 1, "p"))
    R_, p_ = promote(R, p)
    X = zeros(batch + (6, 6), is_symbolic(R_, p_))
    X[..., :3, :3] = R_
    X[..., 3:, 3:] = R_
    X[..., :3, 3:] = _skew(p_) @ R_
    return check_result(X, (R, "R"), (p, "p"))  # NaN or infinity in R or p, or an overflow


def force_transform(R, p):
    """Plücker transform ``X*_AB`` of force vectors from frame B to frame A.

    ``X*_AB = [[R, 0], [skew(p) R, R]] = inv(X_AB).T``, so that power
    ``m_A @ f_A == m_B @ f_B`` is invariant.

    Parameters
    ----------
    R : array_like, shape (..., 3, 3)
    p : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 6, 6)

    Examples
    --------
    >>> import numpy as np
    >>> Xf = force_transform(np.eye(3), [1.0, 0.0, 0.0])
    >>> f_B = np.array([0, 1.0, 0, 0, 0, 0])          # unit force along y through B
    >>> bool(np.allclose(Xf @ f_B, [0, 1, 0, 0, 0, 1]))  # its moment about A's origin
    True
    """
    return np.swapaxes(_transposed_blocks(motion_transform(R, p)), -1, -2)


def inverse_transform(X):
    """Inverse of a Plücker transform (motion or force) by transposing its 3×3 blocks.

    For ``X = [[A, B], [C, D]]`` built by :func:`motion_transform` or
    :func:`force_transform` the inverse is ``[[A.T, B.T], [C.T, D.T]]``; no
    matrix is inverted.

    Parameters
    ----------
    X : array_like, shape (..., 6, 6)

    Returns
    -------
    ndarray, shape (..., 6, 6)
    """
    X = as_array(X, "X")
    check_shape(X, (6, 6), "X")
    check_transform(X, "X")
    return _transposed_blocks(X)


def _transposed_blocks(X):
    """``[[A.T, B.T], [C.T, D.T]]`` of ``X = [[A, B], [C, D]]``: the inverse of a Plücker transform."""
    Y = np.empty_like(X)
    for r in (slice(0, 3), slice(3, 6)):
        for c in (slice(0, 3), slice(3, 6)):
            Y[..., r, c] = np.swapaxes(X[..., r, c], -1, -2)
    return Y


def check_transform(X, name="X", tol=1e-6):
    """Raise ValueError unless a numeric ``X`` of shape (..., 6, 6) is a Plücker transform.

    That is ``[[R, [p] R], [0, R]]`` (motion, :func:`motion_transform`) or ``[[R, 0], [[p] R, R]]``
    (force, :func:`force_transform`) with ``R`` a rotation and ``[p]`` skew-symmetric, each to ``tol``
    (relative to its size for ``[p]``).  Sympy matrices are checked for shape only.

    Parameters
    ----------
    X : ndarray, shape (..., 6, 6)
    name : str
        How the error message names the argument.
    tol : float

    Returns
    -------
    None

    Raises
    ------
    ValueError
        Saying which block is wrong: the rotation, the diagonal blocks, or the off-diagonal ones.
    """
    check_shape(X, (6, 6), name)
    if X.dtype == object:
        return
    check_magnitude(X, name)
    what = (f"{name} must be a Plücker transform, [[R, [p] R], [0, R]] (motion) or [[R, 0], [[p] R, R]] (force) "
            "with R a rotation")
    A, B, C, D = X[..., :3, :3], X[..., :3, 3:], X[..., 3:, :3], X[..., 3:, 3:]
    try:
        check_rotation(A, f"{name}[..., :3, :3]", tol)
    except ValueError as err:
        raise ValueError(f"{what}; {err}") from None
    if not np.abs(D - A).max(initial=0.0) <= tol:
        raise ValueError(f"{what}; its diagonal blocks differ (by up to {quoted(np.abs(D - A).max())})")
    motion, force = np.abs(C).max(initial=0.0) <= tol, np.abs(B).max(initial=0.0) <= tol
    if not (motion or force):
        raise ValueError(f"{what}; neither off-diagonal block is zero")
    P = (B if motion else C) @ np.swapaxes(A, -1, -2)  # [p]
    asymmetry = np.abs(P + np.swapaxes(P, -1, -2)).max(initial=0.0)
    if not asymmetry <= tol * max(1.0, np.abs(P).max(initial=0.0)):
        raise ValueError(f"{what}; its off-diagonal block times R^T is not skew-symmetric ([p] + [p]^T is "
                         f"{quoted(asymmetry)})")


# What numba compiles for the products above when a kernel calls them with one pair of float vectors:
# the same component formulas, without the checks (a kernel's door has checked its inputs).


@compiled_as(skew)
def _skew_compiled(w):
    x, y, z = w[0], w[1], w[2]
    return np.array(((0.0, -z, y), (z, 0.0, -x), (-y, x, 0.0)))


@compiled_as(cross3, inline=True)
def _cross3_compiled(a, b):
    return np.array(_cross3_parts(a, b))


@compiled_as(cross_motion, inline=True)
def _cross_motion_compiled(v, m):
    return np.array(_motion_parts(v, m))


@compiled_as(cross_force, inline=True)
def _cross_force_compiled(v, f):
    return np.array(_force_parts(v, f))
