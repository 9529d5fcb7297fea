"""Rotation matrices and unit quaternions.

Quaternions are **scalar-last**, ``(x, y, z, w)``, as in the *Joint Motion*
note (there ``(a, b, c, d)``).  A quaternion maps to the active rotation of
eq. 2c; ``quaternion_rate_matrix`` is the matrix ``E`` of eq. 5.

Chapter: *Rigid-body motion and joints*; Concurrent Dynamics (2017) eqs. 2b, 2c, 5.
"""

from __future__ import annotations

import numpy as np

from ..core.backend import (
    as_array,
    broadcast_batch,
    check_magnitude,
    check_rng,
    check_rotation,
    check_scalar,
    check_shape,
    cos,
    exact,
    is_symbolic,
    sin,
    sqrt,
)
from ..core.compile import kernel

__all__ = [
    "rotation_about_axis",
    "rotation_from_rpy",
    "unit_axis",
    "rotation_from_quaternion",
    "quaternion_from_rotation",
    "quaternion_multiply",
    "quaternion_conjugate",
    "quaternion_rate_matrix",
    "quaternion_from_rotation_vector",
    "check_unit_quaternion",
    "normalize_quaternion",
    "random_rotation",
    "random_quaternion",
]

QUATERNION_TOLERANCE = 1e-9


def unit_axis(axis, name="axis"):
    """Return ``axis`` scaled to unit length; raise ValueError for a zero or malformed axis.

    Parameters
    ----------
    axis : array_like, shape (3,)

    Returns
    -------
    ndarray, shape (3,)
    """
    a = as_array(axis, name)
    if a.shape != (3,):
        raise ValueError(f"{name} must have shape (3,), got {a.shape}")
    if is_symbolic(a):
        n2 = sum(x * x for x in a)
        if n2 == 0:
            raise ValueError(f"{name} must be non-zero, got {list(a)}")
        return a if n2 == 1 else a / sqrt(n2)
    size = float(np.abs(a).max())  # scaled first: a finite axis of any length up to 1e308 is a direction
    if not np.isfinite(size) or size <= 1e-12:
        raise ValueError(f"{name} must be a finite non-zero 3-vector (length above 1e-12), got {a.tolist()}")
    a = a / size
    return a / float(np.sqrt(a @ a))


def rotation_about_axis(axis, angle):
    """Rotation by ``angle`` about a unit ``axis`` (Rodrigues' formula).

    ``R = (1 - cos t) g g^T + cos t 1 + sin t skew(g)``.

    Parameters
    ----------
    axis : array_like, shape (3,)
        Normalised here; a zero axis raises ValueError.
    angle : float or sympy expression

    Returns
    -------
    ndarray, shape (3, 3)

    References
    ----------
    Concurrent Dynamics (2017) eq. 2b.

    Examples
    --------
    >>> import numpy as np
    >>> R = rotation_about_axis([0, 0, 1], np.pi / 2)
    >>> bool(np.allclose(R @ [1, 0, 0], [0, 1, 0]))
    True
    """
    g = unit_axis(axis)
    check_scalar(angle, "angle")
    if is_symbolic(angle):
        g = exact(g)
    return np.array(axis_angle_matrix(g, cos(angle), sin(angle)), dtype=object if is_symbolic(angle, g) else float)


@kernel(inline=True)
def axis_angle_matrix(g, c, s):
    """Rodrigues' formula ``R = (1 - c) g g^T + c 1 + s [g]x`` for a unit axis ``g``, ``c = cos t``,
    ``s = sin t``, unchecked (a nested tuple of entries; Concurrent Dynamics (2017) eq. 2b)."""
    x, y, z = g[0], g[1], g[2]
    k = 1 - c
    return ((k * x * x + c, k * x * y - s * z, k * x * z + s * y),
            (k * y * x + s * z, k * y * y + c, k * y * z - s * x),
            (k * z * x - s * y, k * z * y + s * x, k * z * z + c))


def rotation_from_rpy(roll, pitch, yaw):
    """Rotation from roll, pitch and yaw about the fixed x, y and z axes (the URDF convention).

    ``R = Rz(yaw) Ry(pitch) Rx(roll)``: roll about x first, then pitch about the original y,
    then yaw about the original z.

    Parameters
    ----------
    roll, pitch, yaw : float or sympy expression
        Angles in radians.

    Returns
    -------
    ndarray, shape (3, 3)

    Examples
    --------
    >>> import numpy as np
    >>> R = rotation_from_rpy(np.pi / 2, 0, np.pi)
    >>> bool(np.allclose(R @ [0, 0, 1], [0, 1, 0]))
    True
    """
    return (rotation_about_axis([0, 0, 1], yaw) @ rotation_about_axis([0, 1, 0], pitch)
            @ rotation_about_axis([1, 0, 0], roll))


def _as_quaternion(q, name):
    """``q`` as an array of shape (..., 4) with finite entries (no larger than 1e40), or an error naming ``name``."""
    q = as_array(q, name)
    check_shape(q, (4,), name)
    check_magnitude(q, name)
    return q


def check_unit_quaternion(q, name="quaternion"):
    """Return ``q`` after checking it is a unit quaternion ``(x, y, z, w)``.

    Quaternions are rejected, not silently normalised, when
    ``| |q| - 1 | > 1e-9``; use :func:`normalize_quaternion` first if needed.
    Symbolic quaternions are checked for shape only.

    Parameters
    ----------
    q : array_like, shape (..., 4)
    name : str
        How the error message names the argument.

    Returns
    -------
    ndarray, shape (..., 4)
    """
    q = as_array(q, name)
    check_shape(q, (4,), name)
    if is_symbolic(q):
        return q
    norm = np.sqrt((q * q).sum(axis=-1))
    if not np.all(np.abs(norm - 1) <= QUATERNION_TOLERANCE):
        raise ValueError(
            f"{name} must be a unit quaternion (x, y, z, w), got norm {norm} "
            "(normalise it with dynlib.normalize_quaternion)"
        )
    return q


def normalize_quaternion(q):
    """Scale a non-zero quaternion to unit length.

    Parameters
    ----------
    q : array_like, shape (..., 4)

    Returns
    -------
    ndarray, shape (..., 4)
    """
    q = _as_quaternion(q, "q")
    norm = np.sqrt((q * q).sum(axis=-1, keepdims=True))
    if np.any(norm <= 1e-12):
        raise ValueError("cannot normalise a zero quaternion")
    return q / norm


def rotation_from_quaternion(q):
    """Rotation matrix of a unit quaternion ``(x, y, z, w)`` (scalar last).

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Must be unit length (see :func:`check_unit_quaternion`).

    Returns
    -------
    ndarray, shape (..., 3, 3)

    References
    ----------
    Concurrent Dynamics (2017) eq. 2c, with ``(a, b, c, d) = (x, y, z, w)``.

    Examples
    --------
    >>> import numpy as np
    >>> h = np.sqrt(0.5)
    >>> R = rotation_from_quaternion([0, 0, h, h])        # 90 degrees about z
    >>> bool(np.allclose(R, rotation_about_axis([0, 0, 1], np.pi / 2)))
    True
    """
    q = check_unit_quaternion(q, "q")
    R = np.array(quaternion_matrix(*_components(q)), dtype=object if is_symbolic(q) else float)
    return R if q.ndim == 1 else np.moveaxis(R, (0, 1), (-2, -1))  # batch axes first


@kernel(inline=True)
def quaternion_matrix(x, y, z, w):
    """The rotation matrix of the unit quaternion ``(x, y, z, w)``, from its components, unchecked.

    The components may be floats, sympy expressions or arrays of them (a batch gives a nested
    tuple of arrays).  Concurrent Dynamics (2017) eq. 2c with ``(a, b, c, d) = (x, y, z, w)``.
    """
    return ((x * x - y * y - z * z + w * w, 2 * (x * y - z * w), 2 * (x * z + y * w)),
            (2 * (x * y + z * w), -x * x + y * y - z * z + w * w, 2 * (y * z - x * w)),
            (2 * (x * z - y * w), 2 * (y * z + x * w), -x * x - y * y + z * z + w * w))


def quaternion_from_rotation(R):
    """Unit quaternion ``(x, y, z, w)`` with ``w >= 0`` of a rotation matrix (Shepperd's method).

    Parameters
    ----------
    R : array_like, shape (3, 3)

    Returns
    -------
    ndarray, shape (4,)
    """
    R = as_array(R, "R")
    if R.shape != (3, 3):
        raise ValueError(f"R must have shape (3, 3), got {R.shape}")
    if is_symbolic(R):
        raise TypeError("quaternion_from_rotation needs a numeric R")
    check_rotation(R, "R")
    t = np.trace(R)
    diag = np.diag(R)
    k = int(np.argmax([diag[0], diag[1], diag[2], t]))
    if k == 3:
        w = np.sqrt(1 + t) / 2
        q = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1], 0]) / (4 * w)
        q[3] = w
    else:
        i, j, m = k, (k + 1) % 3, (k + 2) % 3
        r = np.sqrt(1 + R[i, i] - R[j, j] - R[m, m]) / 2
        q = np.empty(4)
        q[i] = r
        q[j] = (R[j, i] + R[i, j]) / (4 * r)
        q[m] = (R[m, i] + R[i, m]) / (4 * r)
        q[3] = (R[m, j] - R[j, m]) / (4 * r)
    return q if q[3] >= 0 else -q


def quaternion_multiply(q1, q2):
    """Hamilton product ``q1 ⊗ q2`` of scalar-last quaternions.

    ``rotation_from_quaternion(q1 ⊗ q2) == R(q1) @ R(q2)``.

    Parameters
    ----------
    q1, q2 : array_like, shape (4,) or (..., 4)
        Leading batch axes broadcast.

    Returns
    -------
    ndarray, shape (4,) or (..., 4)
    """
    q1, q2 = _as_quaternion(q1, "q1"), _as_quaternion(q2, "q2")
    if q1.ndim > 1 or q2.ndim > 1:
        broadcast_batch((q1, 1, "q1"), (q2, 1, "q2"))
    x1, y1, z1, w1 = _components(q1)
    x2, y2, z2, w2 = _components(q2)
    product = [
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
    ]
    return np.array(product) if q1.ndim == q2.ndim == 1 else np.stack(product, axis=-1)


def _components(q):
    """The four components of a quaternion, or four arrays of them for a batch (..., 4)."""
    return q if q.ndim == 1 else np.moveaxis(q, -1, 0)


def quaternion_conjugate(q):
    """Conjugate ``(-x, -y, -z, w)``: the inverse rotation of a unit quaternion.

    Parameters
    ----------
    q : array_like, shape (4,)

    Returns
    -------
    ndarray, shape (4,)
    """
    q = _as_quaternion(q, "q")
    return q * np.array([-1, -1, -1, 1])


def quaternion_rate_matrix(q):
    """Matrix ``E(q)`` with ``dq/dt = E(q) @ omega / 2`` for a body-frame angular velocity.

    ``omega`` is the angular velocity of the child frame relative to the parent,
    expressed in the child frame (the ``Omega_i^i`` of the Joint Motion note).

    Parameters
    ----------
    q : array_like, shape (4,) or (..., 4)
        Quaternion ``(x, y, z, w) = (a, b, c, d)``.

    Returns
    -------
    ndarray, shape (4, 3) or (..., 4, 3)

    References
    ----------
    Concurrent Dynamics (2017) eq. 5.
    """
    q = _as_quaternion(q, "q")
    a, b, c, d = _components(q)
    E = np.array(
        [[d, -c, b], [c, d, -a], [-b, a, d], [-a, -b, -c]],
        dtype=object if is_symbolic(q) else float,
    )
    return E if q.ndim == 1 else np.moveaxis(E, (0, 1), (-2, -1))  # batch axes first


def quaternion_from_rotation_vector(w):
    """Unit quaternion of the rotation ``exp(skew(w))`` (angle ``|w|`` about ``w/|w|``).

    Parameters
    ----------
    w : array_like, shape (3,), or (..., 3) if numeric

    Returns
    -------
    ndarray, shape (4,) or (..., 4)
    """
    w = as_array(w, "w")
    check_shape(w, (3,), "w")
    check_magnitude(w, "w")
    if is_symbolic(w):
        if w.shape != (3,):
            raise ValueError(f"a symbolic w must have shape (3,), got {w.shape}")
        theta = sqrt(w @ w)
        return np.concatenate([w * sin(theta / 2) / theta, [cos(theta / 2)]])
    if w.shape == (3,):
        theta = float(np.sqrt(w @ w))
        half = theta / 2
        # sin(t/2)/t with its Taylor series near zero
        k = np.sin(half) / theta if theta > 1e-8 else 0.5 - theta * theta / 48
        return np.array([k * w[0], k * w[1], k * w[2], np.cos(half)])
    theta = np.sqrt((w * w).sum(axis=-1, keepdims=True))  # a batch: the same, entrywise
    small = theta <= 1e-8
    k = np.where(small, 0.5 - theta * theta / 48, np.sin(theta / 2) / np.where(small, 1.0, theta))
    return np.concatenate([k * w, np.cos(theta / 2)], axis=-1)


def random_quaternion(rng):
    """A uniformly distributed random unit quaternion ``(x, y, z, w)``.

    Parameters
    ----------
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (4,)
    """
    check_rng(rng)
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def random_rotation(rng):
    """A uniformly distributed random rotation matrix.

    Parameters
    ----------
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (3, 3)
    """
    return rotation_from_quaternion(random_quaternion(rng))
