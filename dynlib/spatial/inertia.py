"""Spatial inertia: built from mass, centre of mass and rotational inertia, taken apart again,
moved between frames, and used for kinetic energy and momentum.

``I = [[m 1, -m skew(c)], [m skew(c), I_c - m skew(c) skew(c)]]`` maps a twist ``[v_O; w]``
to the momentum ``[p; h_O]`` (linear part first, about the frame's origin).

Chapter: *Spatial inertia and the Newton–Euler equations*; Alexiou (2023) eq. 9; Alexiou
(1999) "Spatial Inertia", "Power and Energy"; Lecture 4 "Spatial Momentum"; Kim (2012)
eqs. 20-22.
"""

from __future__ import annotations

import numpy as np

from ..core.backend import (
    LARGEST_MAGNITUDE,
    as_array,
    as_finite,
    broadcast_batch,
    check_finite,
    check_magnitude,
    check_result,
    check_rng,
    check_scalar,
    check_shape,
    is_symbolic,
    promote,
    quoted_list,
    simplify,
    zeros,
)
from .algebra import cross3, inverse_transform, skew, unskew
from .conventions import planar_matrix
from .rotations import random_rotation

__all__ = [
    "check_rotational_inertia",
    "spatial_inertia",
    "inertia_parameters",
    "transform_inertia",
    "kinetic_energy",
    "momentum",
    "angular_momentum",
    "planar_link_inertia",
    "planar_body_inertia",
    "random_inertia",
]


#: A principal moment down to ``-MOMENT_RTOL`` times the inertia's size counts as zero: the
#: round-off of a diagonal inertia rotated into other axes (CAD data) is of the order 1e-16.
MOMENT_RTOL = 1e-10


def principal_moments(I_c, name="inertia", scale=None, allow_negative=False):
    """The principal moments of a numeric 3×3 rotational inertia, after checking it is symmetric positive semi-definite.

    A moment counts as zero down to ``-MOMENT_RTOL * scale``, where ``scale`` is the size of the
    quantities the inertia was computed from (by default its largest entry): so the round-off of a
    rotated diagonal inertia, and the zero inertia of a point mass, pass.  Unlike
    :func:`check_rotational_inertia` (a rigid body's inertia, by hand), this admits what data
    files give: point masses, and moments that break the triangle inequality.

    Parameters
    ----------
    I_c : ndarray, shape (3, 3)
        Finite entries (checked by the caller).
    name : str
        How the error message names the argument.
    scale : float, optional
    allow_negative : bool
        True: a negative moment beyond round-off is returned rather than refused (a data file's
        inertia used as given; the caller reports it), and only symmetry is checked.

    Returns
    -------
    ndarray, shape (3,)
        Ascending; a moment within the tolerance of zero is returned as computed.
    """
    size = max(np.abs(I_c).max() if scale is None else scale, np.finfo(float).tiny)
    moments = _symmetric_moments(I_c, name, size)
    if moments[0] < -MOMENT_RTOL * size and not allow_negative:
        raise ValueError(
            f"{name} must be positive semi-definite (no negative principal moment); its principal moments are "
            f"{quoted_list(moments, MOMENT_RTOL * size, 3)}"
        )
    return moments


def _symmetric_moments(I_c, name, size):
    """The ascending eigenvalues of a numeric 3×3 inertia, after checking it is symmetric to ``1e-12 * size``."""
    if not np.allclose(I_c, I_c.T, rtol=0, atol=1e-12 * size):
        raise ValueError(f"{name} must be symmetric, got {I_c.tolist()}")
    return np.linalg.eigvalsh((I_c + I_c.T) / 2)


def triangle_excess(moments):
    """How far principal moments ``I1 <= I2 <= I3`` break the triangle inequality: ``I3 - I1 - I2``, or 0."""
    return max(float(moments[2] - moments[0] - moments[1]), 0.0)


def check_rotational_inertia(I_c, name="inertia"):
    """Raise ValueError unless a 3×3 inertia is that of a rigid body.

    Numeric inertias must be symmetric positive definite with principal moments
    obeying the triangle inequality ``I1 + I2 >= I3``; symbolic inertias are
    checked for shape and exact symmetry only.

    Parameters
    ----------
    I_c : array_like, shape (3, 3)
    name : str
        How the error message names the argument.

    Returns
    -------
    None
    """
    I_c = as_array(I_c, name)
    check_shape(I_c, (3, 3), name)
    if I_c.ndim != 2:
        raise ValueError(f"{name} must have shape (3, 3), got {I_c.shape}")
    if is_symbolic(I_c):
        if np.any(simplify(I_c - I_c.T) != 0):
            raise ValueError(f"{name} must be symmetric, got {I_c}")
        return
    check_finite(I_c, name)
    scale = max(np.abs(I_c).max(), np.finfo(float).tiny)
    moments = _symmetric_moments(I_c, name, scale)
    if moments[0] <= 1e-12 * scale:
        raise ValueError(
            f"{name} must be positive definite; its principal moments are {quoted_list(moments, 1e-12 * scale, 3)}"
        )
    if triangle_excess(moments) > 1e-12 * moments[2]:
        raise ValueError(
            f"{name} violates the triangle inequality of principal moments "
            f"(I1 + I2 >= I3): {quoted_list(moments, 0, 6)}"
        )


def spatial_inertia(mass, com, inertia_com):
    """Spatial inertia about a frame's origin from mass, centre of mass and rotational inertia.

    ``I = [[m 1, -m skew(c)], [m skew(c), I_c - m skew(c) skew(c)]]`` maps a twist
    ``[v_O; w]`` to the momentum wrench ``[p; h_O]`` (linear first).

    Parameters
    ----------
    mass : float or sympy expression
        Must be positive (numeric case).
    com : array_like, shape (3,)
        Centre of mass ``c`` in the frame.
    inertia_com : array_like, shape (3, 3)
        Rotational inertia about the centre of mass, frame axes; symmetric
        positive definite, principal moments obeying the triangle inequality.

    Returns
    -------
    ndarray, shape (6, 6)

    Raises
    ------
    ValueError
        Non-positive mass, wrong shapes, or an inertia that is not a rigid body's.

    References
    ----------
    Alexiou (2023) eq. 9; Alexiou (1999) "Spatial Inertia"; Lecture 4 "Spatial Momentum".

    Examples
    --------
    >>> import numpy as np
    >>> I = spatial_inertia(2.0, [0.5, 0, 0], np.diag([0.1, 0.2, 0.2]))
    >>> m, c, I_c = inertia_parameters(I)
    >>> bool(np.isclose(m, 2.0) and np.allclose(c, [0.5, 0, 0]) and np.isclose(I[5, 5], 0.7))
    True
    """
    com = as_array(com, "com")
    I_c = as_array(inertia_com, "inertia_com")
    if com.shape != (3,):
        raise ValueError(f"com must have shape (3,), got {com.shape}")
    check_magnitude(com, "com")
    check_rotational_inertia(I_c, "inertia_com")
    symbolic = is_symbolic(mass, com, I_c)
    if symbolic:
        com, I_c = promote(com, I_c, mass)[:2]
    else:
        if np.ndim(mass) != 0:
            raise ValueError(f"mass must be a scalar, got shape {np.shape(mass)}")
        mass = float(check_scalar(mass, "mass", high=LARGEST_MAGNITUDE))
        if not mass > 0:
            raise ValueError(f"mass must be positive, got {mass}")
    return assemble_inertia(mass, com, I_c, symbolic)


def assemble_inertia(mass, com, I_c, symbolic=False):
    """:func:`spatial_inertia` of inputs already checked (or read as given from a data file)."""
    C = skew(com)
    I = zeros((6, 6), symbolic)
    I[:3, :3] = mass * np.eye(3, dtype=int)
    I[:3, 3:] = -mass * C
    I[3:, :3] = mass * C
    I[3:, 3:] = I_c - mass * (C @ C)
    return I if symbolic else (I + I.T) / 2  # exactly symmetric despite rounding


def inertia_parameters(I):
    """Mass, centre of mass and rotational inertia about the centre of mass of a spatial inertia.

    Inverse of :func:`spatial_inertia`.

    Parameters
    ----------
    I : array_like, shape (6, 6)

    Returns
    -------
    mass : float
    com : ndarray, shape (3,)
    inertia_com : ndarray, shape (3, 3)

    Raises
    ------
    ValueError
        If ``I`` does not have the structure of a rigid-body inertia.
    """
    I = as_array(I, "I")
    if I.shape != (6, 6):
        raise ValueError(f"I must have shape (6, 6), got {I.shape}")
    mass = I[0, 0]
    symbolic = is_symbolic(I)
    if not symbolic:
        scale = max(np.abs(I).max(), np.finfo(float).tiny)
        tol = 1e-9 * scale
        if not mass > tol:
            raise ValueError(f"I must have positive mass I[0, 0], got {mass}")
        if not (
            np.allclose(I, I.T, rtol=0, atol=tol)
            and np.allclose(I[:3, :3], mass * np.eye(3), rtol=0, atol=tol)
            and np.allclose(I[:3, 3:], -I[3:, :3], rtol=0, atol=tol)
            and np.allclose(I[3:, :3], -I[3:, :3].T, rtol=0, atol=tol)
        ):
            raise ValueError(
                "I is not a rigid-body spatial inertia: expected symmetric "
                "[[m 1, -m skew(c)], [m skew(c), I_O]] (linear part first)"
            )
    com = unskew(I[3:, :3]) / mass
    C = skew(com)
    inertia_com = I[3:, 3:] + mass * (C @ C)
    return mass, com, inertia_com


def transform_inertia(X, I):
    """Express a spatial inertia given in frame B in frame A.

    ``I_A = X*_AB I_B X_BA`` where ``X = X_AB`` is the motion transform from B to A.
    Works for any symmetric 6×6 inertia-like operator (articulated inertias too).

    Parameters
    ----------
    X : array_like, shape (..., 6, 6)
        Motion transform ``X_AB`` (see :func:`motion_transform`).
    I : array_like, shape (..., 6, 6)

    Returns
    -------
    ndarray, shape (..., 6, 6)

    References
    ----------
    Lecture 4 "Spatial Momentum" (parallel-axis theorem); Kim (2012) eq. 21.
    """
    X = as_array(X, "X")
    X_inv = inverse_transform(X)  # checks that X is a Plücker transform
    I = as_finite(I, (6, 6), "I")
    broadcast_batch((X, 2, "X"), (I, 2, "I"))
    return check_result(np.swapaxes(X_inv, -1, -2) @ I @ X_inv, (X, "X"), (I, "I"))


def kinetic_energy(I, v):
    """Kinetic energy ``v·I v / 2`` of a body with spatial inertia ``I`` and twist ``v``.

    Parameters
    ----------
    I : array_like, shape (..., 6, 6)
    v : array_like, shape (..., 6)

    Returns
    -------
    float or ndarray, shape (...)
    """
    I, v = _inertia_and_twist(I, v)
    return (v * (I @ v[..., None])[..., 0]).sum(axis=-1) / 2


def _inertia_and_twist(I, v):
    """Finite arrays of shapes (..., 6, 6) and (..., 6) whose batch axes broadcast."""
    I, v = as_finite(I, (6, 6), "I"), as_finite(v, (6,), "v")
    broadcast_batch((I, 2, "I"), (v, 1, "v"))
    return I, v


def momentum(I, v):
    """Spatial momentum ``h = I v`` (a force-type vector, linear part first).

    Parameters
    ----------
    I : array_like, shape (..., 6, 6)
    v : array_like, shape (..., 6)

    Returns
    -------
    ndarray, shape (..., 6)
    """
    I, v = _inertia_and_twist(I, v)
    return (I @ v[..., None])[..., 0]


def angular_momentum(I, v, point=None):
    """Angular momentum of a body about a point: ``L_x = h_O - x × p``.

    ``[p; h_O] = I v`` is the spatial momentum about the frame's origin O (linear part
    first).  Moving the reference point from O to ``x`` changes only the moment, by the
    same rule as for a force, so a momentum transforms like a wrench.

    Parameters
    ----------
    I : array_like, shape (..., 6, 6)
        Spatial inertia about the frame's origin.
    v : array_like, shape (..., 6)
        Twist ``[v_O; w]`` in the same frame.
    point : array_like, shape (..., 3), optional
        The point ``x`` (same frame); the origin by default.

    Returns
    -------
    ndarray, shape (..., 3)

    References
    ----------
    Chapter *Spatial inertia and the Newton–Euler equations* (``ch-inertia``), spatial
    momentum; Lecture 4 "Spatial Momentum" (``h_A = X*_AC h_C``); Kim (2012) eqs. 23-24.

    Examples
    --------
    >>> import numpy as np
    >>> I = spatial_inertia(2.0, [1.0, 0, 0], np.diag([0.1, 0.2, 0.2]))
    >>> v = np.array([0, 3.0, 0, 0, 0, 0])              # translating at 3 m/s along y
    >>> bool(np.allclose(angular_momentum(I, v), [0, 0, 6]) and np.allclose(angular_momentum(I, v, [1.0, 0, 0]), 0))
    True
    """
    h = momentum(I, v)
    if point is None:
        return h[..., 3:]
    point = as_finite(point, (3,), "point")
    broadcast_batch((h, 1, "I v"), (point, 1, "point"))
    return h[..., 3:] - cross3(point, h[..., :3])


def planar_link_inertia(I_zz):
    """3-D rotational inertia ``diag(I_zz/2, I_zz/2, I_zz)`` of a link moving in the xy plane.

    Only ``I_zz`` matters for planar motion; the in-plane moments are chosen as a
    lamina's (perpendicular-axis theorem, ``I_xx + I_yy = I_zz``) so that the 3-D
    inertia is positive definite and obeys the triangle inequality.

    Parameters
    ----------
    I_zz : float or sympy expression
        Positive (numeric case).

    Returns
    -------
    ndarray, shape (3, 3)
    """
    _check_positive(I_zz, "I_zz")
    return np.diag([I_zz / 2, I_zz / 2, I_zz])


def _check_positive(x, name):
    """Raise unless ``x`` is a sympy expression or a positive number of magnitude at most ``LARGEST_MAGNITUDE``."""
    check_scalar(x, name, high=LARGEST_MAGNITUDE)
    if not is_symbolic(x) and not x > 0:
        raise ValueError(f"{name} must be positive, got {x}")


def planar_body_inertia(mass, com, radius_of_gyration):
    """The 3×3 planar inertia ``(fx, fy, nz) <- (vx, vy, wz)`` about the origin of a body in the xy plane.

    Parameters
    ----------
    mass : float or sympy expression
        Positive (numeric case).
    com : array_like, shape (2,)
        Centre of mass in the plane.
    radius_of_gyration : float or sympy expression
        ``rho > 0`` with ``I_zz = mass * rho**2`` about the centre of mass.

    Returns
    -------
    ndarray, shape (3, 3)

    References
    ----------
    Alexiou (1999) "Planar Screws", "Inertia Mappings".

    Examples
    --------
    >>> import numpy as np
    >>> I = planar_body_inertia(2.0, [1.0, 0.0], 0.5)
    >>> bool(np.allclose(I, [[2, 0, 0], [0, 2, 2], [0, 2, 2 * 0.25 + 2]]))
    True
    """
    com = as_array(com, "com")
    if com.shape != (2,):
        raise ValueError(f"com must have shape (2,), got {com.shape}")
    _check_positive(mass, "mass")
    _check_positive(radius_of_gyration, "radius_of_gyration")
    I_c = planar_link_inertia(mass * radius_of_gyration**2)
    return planar_matrix(spatial_inertia(mass, [com[0], com[1], 0], I_c))


def random_inertia(rng, mass_range=(0.5, 2.0), com_scale=0.3):
    """A random rigid-body spatial inertia (a uniform box, randomly rotated and offset).

    Parameters
    ----------
    rng : numpy.random.Generator
    mass_range : (float, float)
        Lowest and highest mass, ``0 < low <= high``.
    com_scale : float
        Standard deviation of the centre-of-mass offset (not negative).

    Returns
    -------
    ndarray, shape (6, 6)
    """
    check_rng(rng)
    mass_range = as_finite(mass_range, (2,), "mass_range")
    if mass_range.shape != (2,) or mass_range.dtype == object or not 0 < mass_range[0] <= mass_range[1]:
        raise ValueError(f"mass_range must be two numbers (low, high) with 0 < low <= high, got {mass_range.tolist()}")
    check_scalar(com_scale, "com_scale", low=0, high=LARGEST_MAGNITUDE)
    mass = rng.uniform(*mass_range)
    a, b, c = rng.uniform(0.1, 1.0, size=3)
    moments = mass / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    R = random_rotation(rng)
    return spatial_inertia(mass, rng.normal(scale=com_scale, size=3), R @ np.diag(moments) @ R.T)
