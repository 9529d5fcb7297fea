"""Projective geometry of planar twists and wrenches: points, lines, incidence and percussion.

A homogeneous point is ``P = [w, w x, w y]`` and the line ``{n . x = r}`` is
``L = [-r, n_x, n_y]`` (up to scale); the point lies on the line when ``P @ L == 0``.  A
planar twist ``(vx, vy, wz)`` is a point (its instantaneous centre, weight ``wz``) and a
planar wrench ``(fx, fy, nz)`` a line (its line of action, weight ``|f|``) in the slides'
other coordinate choice; the involution ``(x0, x1, x2) -> (x2, -x1, x0)`` converts and
keeps ``P @ L == twist @ wrench``, so zero power is incidence.  The planar inertia maps
points to lines; the image of a pivot is its axis of percussion.

Chapter: *Projective geometry and subspace decompositions*; Alexiou (1999) "Planar
Homogeneous Coordinates", "Alternative Coordinates", "Planar Twists and Wrenches",
"Inertia Mappings", "Power Relationships".
"""

from __future__ import annotations

import numpy as np

from ..core.backend import (
    as_array,
    as_finite,
    as_spd_matrix,
    broadcast_batch,
    is_exactly_zero,
    is_symbolic,
    magnitude,
    promote,
    simplify,
    sqrt,
)
from .conventions import planar_matrix

__all__ = [
    "homogeneous_point",
    "homogeneous_line",
    "cartesian_point",
    "line_point_direction",
    "incidence",
    "point_of_twist",
    "twist_of_point",
    "line_of_wrench",
    "wrench_of_line",
    "inertia_point_line_map",
    "percussion_axis",
]

_SIGNS = np.array([1, -1, 1])  # (x0, x1, x2) -> (x2, -x1, x0) is _SIGNS * x[::-1]


def _any_zero(x, ref, rtol=1e-12):
    """True if an entry of ``x`` vanishes: exactly (sympy) or relative to the size of ``ref``."""
    return np.any(is_exactly_zero(x)) if is_symbolic(x) else np.any(np.abs(x) <= rtol * magnitude(ref))


# --- planar points and lines --------------------------------------------------------------------


def homogeneous_point(xy, weight=1):
    """Homogeneous coordinates ``[w, w x, w y]`` of the planar point ``(x, y)``.

    Parameters
    ----------
    xy : array_like, shape (..., 2)
    weight : float, sympy expression or array_like, shape (...)
        The scale ``w`` (the angular speed when the point stands for a twist); one per point
        of a batch, or one for all.

    Returns
    -------
    ndarray, shape (..., 3)

    References
    ----------
    Alexiou (1999) "Planar Homogeneous Coordinates";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    xy, w = as_finite(xy, (2,), "xy"), as_finite(weight, (), "weight")
    batch = broadcast_batch((xy, 1, "xy"), (w, 0, "weight"))
    xy, w = promote(np.broadcast_to(xy, batch + (2,)), np.broadcast_to(w, batch)[..., None])
    return np.concatenate([w, w * xy], axis=-1)


def homogeneous_line(point, direction):
    """Homogeneous line ``[-r, n_x, n_y]`` through ``point`` along ``direction``, scaled by ``|direction|``.

    ``n`` is the direction turned by +90 degrees: the result is :func:`line_of_wrench` of
    the force ``direction`` acting through ``point``.

    Parameters
    ----------
    point, direction : array_like, shape (..., 2)

    Returns
    -------
    ndarray, shape (..., 3)

    References
    ----------
    Alexiou (1999) "Planar Homogeneous Coordinates";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    q, e = as_finite(point, (2,), "point"), as_finite(direction, (2,), "direction")
    broadcast_batch((q, 1, "point"), (e, 1, "direction"))
    q, e = promote(q, e)
    moment = q[..., 0] * e[..., 1] - q[..., 1] * e[..., 0]
    return np.stack(np.broadcast_arrays(moment, -e[..., 1], e[..., 0]), axis=-1)


def cartesian_point(P):
    """The Cartesian point ``(x, y)`` of ``P = [w, w x, w y]``; ValueError if ``w = 0`` (at infinity).

    Parameters
    ----------
    P : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 2)

    References
    ----------
    Alexiou (1999) "Planar Homogeneous Coordinates";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    P = as_finite(P, (3,), "P")
    if _any_zero(P[..., 0], P):
        raise ValueError("P is a point at infinity (P[0] = 0, a pure translation): it has no position")
    return simplify(P[..., 1:] / P[..., :1])


def line_point_direction(L):
    """Foot of the perpendicular from the origin to a line, and the line's unit direction.

    Parameters
    ----------
    L : array_like, shape (..., 3)
        Homogeneous line ``[-r, n_x, n_y]`` (any scale); ValueError for the line at
        infinity ``n = 0`` (a pure couple).

    Returns
    -------
    foot : ndarray, shape (..., 2)
        ``r n / |n|``.
    direction : ndarray, shape (..., 2)
        ``(n_y, -n_x) / |n|``, the direction of the force whose line it is.

    References
    ----------
    Alexiou (1999) "Planar Homogeneous Coordinates";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    L = as_finite(L, (3,), "L")
    n = L[..., 1:]
    nn = np.sum(n * n, axis=-1, keepdims=True)
    if _any_zero(nn, L * L):
        raise ValueError("L is the line at infinity (n = 0, a pure couple): it has no position")
    return simplify(-L[..., :1] * n / nn), simplify(np.stack([n[..., 1], -n[..., 0]], axis=-1) / sqrt(nn))


def incidence(P, L):
    """``P @ L``, zero exactly when point ``P`` lies on line ``L``; equals the power of their twist and wrench.

    Parameters
    ----------
    P, L : array_like, shape (..., 3)

    Returns
    -------
    float, sympy expression or ndarray, shape (...)

    References
    ----------
    Alexiou (1999) "Planar Homogeneous Coordinates", "Power Relationships";
    chapter *Projective geometry and subspace decompositions* of the course book.

    Examples
    --------
    >>> P = homogeneous_point([2.0, 1.0])
    >>> bool(abs(incidence(P, homogeneous_line([0.0, -1.0], [1.0, 1.0]))) < 1e-12)
    True
    """
    P, L = as_finite(P, (3,), "P"), as_finite(L, (3,), "L")
    broadcast_batch((P, 1, "P"), (L, 1, "L"))
    return (P * L).sum(axis=-1)


def point_of_twist(v):
    """Homogeneous point ``(wz, -vy, vx)`` of a planar twist: its instantaneous centre, weight ``wz``.

    Parameters
    ----------
    v : array_like, shape (..., 3)
        Planar twist ``(vx, vy, wz)`` (see :func:`dynlib.planar_components`).

    Returns
    -------
    ndarray, shape (..., 3)

    References
    ----------
    Alexiou (1999) "Alternative Coordinates", "Planar Twists and Wrenches";
    chapter *Projective geometry and subspace decompositions* of the course book.

    Examples
    --------
    >>> import numpy as np
    >>> v = np.array([1.0, -2.0, 0.5])                  # 0.5 rad/s about (4, 2)
    >>> bool(np.allclose(cartesian_point(point_of_twist(v)), [4, 2]))
    True
    """
    return as_finite(v, (3,), "v")[..., ::-1] * _SIGNS


def twist_of_point(P):
    """Planar twist ``(vx, vy, wz)`` of a homogeneous point (inverse of :func:`point_of_twist`).

    Parameters
    ----------
    P : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3)

    References
    ----------
    Alexiou (1999) "Alternative Coordinates", "Planar Twists and Wrenches";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    return as_finite(P, (3,), "P")[..., ::-1] * _SIGNS


def line_of_wrench(f):
    """Homogeneous line ``(nz, -fy, fx)`` of a planar wrench: its line of action, weight ``|f|``.

    Parameters
    ----------
    f : array_like, shape (..., 3)
        Planar wrench ``(fx, fy, nz)``; a pure couple gives the line at infinity.

    Returns
    -------
    ndarray, shape (..., 3)

    References
    ----------
    Alexiou (1999) "Alternative Coordinates", "Planar Twists and Wrenches";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    return as_finite(f, (3,), "f")[..., ::-1] * _SIGNS


def wrench_of_line(L):
    """Planar wrench ``(fx, fy, nz)`` of a homogeneous line (inverse of :func:`line_of_wrench`).

    Parameters
    ----------
    L : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3)

    References
    ----------
    Alexiou (1999) "Alternative Coordinates", "Planar Twists and Wrenches";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    return as_finite(L, (3,), "L")[..., ::-1] * _SIGNS


def inertia_point_line_map(I):
    """The symmetric 3x3 ``C`` with ``L = C P``: the planar inertia mapping points to lines.

    ``C = M I M`` with ``M`` the coordinate involution: ``C P`` is the line of the momentum
    of the twist of ``P``.

    Parameters
    ----------
    I : array_like, shape (3, 3) or (6, 6)
        Planar inertia, or a spatial inertia (its planar block is used).

    Returns
    -------
    ndarray, shape (3, 3)

    References
    ----------
    Alexiou (1999) "Planar Mapping", "Inertia Mappings";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    I = as_array(I, "I")
    I = as_spd_matrix(planar_matrix(I) if I.shape == (6, 6) else I, 3)
    return I[::-1, ::-1] * np.outer(_SIGNS, _SIGNS)


def percussion_axis(I, pivot):
    """Axis of percussion (sweet spot) of a planar body for a pivot: the line ``C P``.

    An impulse along it sets the body at rest turning about ``pivot``, so a hinge there
    feels no reaction impulse.  For a pivot at distance ``a`` from the centre of mass
    the axis is perpendicular to that direction, beyond the centre of mass by ``rho**2/a``.

    Parameters
    ----------
    I : array_like, shape (3, 3) or (6, 6)
        Planar or spatial inertia about the world origin.
    pivot : array_like, shape (2,) or (..., 2)

    Returns
    -------
    ndarray, shape (3,) or (..., 3)
        Homogeneous line (the momentum of a unit rotation about ``pivot``); the line at
        infinity when the pivot is the centre of mass.

    References
    ----------
    Alexiou (1999) "Inertia Mappings";
    chapter *Projective geometry and subspace decompositions* of the course book.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import spatial_inertia
    >>> rod = spatial_inertia(1.0, [0.5, 0, 0], np.diag([1e-4, 1 / 12, 1 / 12]))  # pivot at x = 0
    >>> foot, direction = line_point_direction(percussion_axis(rod, [0.0, 0.0]))
    >>> bool(np.allclose(foot, [2 / 3, 0]))
    True
    """
    C = inertia_point_line_map(I)
    C, P = promote(C, homogeneous_point(as_finite(pivot, (2,), "pivot")))
    return P @ C  # = C @ P as C is symmetric, and also for a batch of pivots
