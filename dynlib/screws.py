"""Screws: lines with a pitch, and the twists and wrenches that are screws with a magnitude.

A twist about a screw through point ``r`` with unit direction ``e`` and pitch
``h`` is ``w [r x e + h e; e]``; a wrench along it is ``F [e; r x e + h e]``.
Infinite pitch gives a pure translation ``[V e; 0]`` or a pure couple ``[0; N e]``.

Chapter: *Screws, twists and wrenches*; Alexiou (1999) "Screw Representations",
"Twist as a Screw", "Wrench as a Screw".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._backend import as_array, exact, is_symbolic, sqrt, zeros
from .rotations import unit_axis
from .spatial import cross3

__all__ = [
    "Screw",
    "twist_from_screw",
    "wrench_from_screw",
    "screw_of_twist",
    "screw_of_wrench",
    "reciprocal_product",
    "line_coordinates",
    "line_through_points",
]


class Screw(NamedTuple):
    """A screw axis with pitch and magnitude.

    Attributes
    ----------
    point : ndarray, shape (3,)
        The point of the axis closest to the origin (the origin itself when the
        pitch is infinite, since then only the direction is defined).
    direction : ndarray, shape (3,)
        Unit vector along the axis.
    pitch : float or sympy expression
        Length per radian; ``inf`` for a pure translation or couple.
    magnitude : float or sympy expression
        Angular speed (twist) or force (wrench); the linear speed or couple when
        the pitch is infinite.
    """

    point: np.ndarray
    direction: np.ndarray
    pitch: object
    magnitude: object


def _screw_vectors(point, direction, pitch, magnitude):
    """Return (u, m): the direction times magnitude, and the moment part ``r x u + h u``."""
    e = unit_axis(direction, "direction")
    infinite = not is_symbolic(pitch) and np.isinf(pitch)
    r = None if infinite else as_array(point, "point")
    if r is not None and r.shape != (3,):
        raise ValueError(f"point must have shape (3,), got {r.shape}")
    if is_symbolic(e, r, pitch, magnitude):
        e = exact(e)
        r = None if r is None else exact(r)
    u = magnitude * e
    if infinite:
        return zeros(3, is_symbolic(u)), u
    return u, cross3(r, u) + pitch * u


def twist_from_screw(point, direction, pitch=0, magnitude=1):
    """Twist ``[v_O; w]`` of a motion about a screw axis.

    Parameters
    ----------
    point : array_like, shape (3,)
        Any point of the axis (ignored for infinite pitch).
    direction : array_like, shape (3,)
        Axis direction (normalised here; zero raises ValueError).
    pitch : float or sympy expression
        Translation per radian of rotation; ``numpy.inf`` for a pure translation.
    magnitude : float or sympy expression
        Angular speed (linear speed if the pitch is infinite).

    Returns
    -------
    ndarray, shape (6,)

    References
    ----------
    Alexiou (1999) "Twist as a Screw"; Alexiou (2023) eq. 6 (zero pitch).

    Examples
    --------
    >>> import numpy as np
    >>> s = twist_from_screw([1.0, 0, 0], [0, 0, 1])     # unit rotation about a vertical line at x = 1
    >>> bool(np.allclose(s, [0, -1, 0, 0, 0, 1]))
    True
    """
    w, v = _screw_vectors(point, direction, pitch, magnitude)
    return np.concatenate([v, w])


def wrench_from_screw(point, direction, pitch=0, magnitude=1):
    """Wrench ``[f; n_O]`` of a load along a screw axis.

    Parameters
    ----------
    point : array_like, shape (3,)
        Any point of the line of action (ignored for infinite pitch).
    direction : array_like, shape (3,)
    pitch : float or sympy expression
        Moment per unit force about the axis; ``numpy.inf`` for a pure couple.
    magnitude : float or sympy expression
        Force (couple if the pitch is infinite).

    Returns
    -------
    ndarray, shape (6,)

    References
    ----------
    Alexiou (1999) "Wrench as a Screw".

    Examples
    --------
    >>> import numpy as np
    >>> f = wrench_from_screw([2.0, 0, 0], [0, 1, 0])   # unit force along y through x = 2
    >>> bool(np.allclose(f, [0, 1, 0, 0, 0, 2]))
    True
    """
    f, n = _screw_vectors(point, direction, pitch, magnitude)
    return np.concatenate([f, n])


def _axis_of(u, m, kind):
    """Screw of a 6-vector split as (u, m) with m = r x u + h u."""
    symbolic = is_symbolic(u, m)
    uu, mm = u @ u, m @ m
    if symbolic:
        zero_u = uu == 0
        if zero_u and mm == 0:
            raise ValueError(f"a zero {kind} has no screw axis")
    else:
        if not np.all(np.isfinite(u)) or not np.all(np.isfinite(m)):
            raise ValueError(f"{kind} must be finite")
        scale = uu + mm
        if scale == 0:
            raise ValueError(f"a zero {kind} has no screw axis")
        zero_u = uu <= 1e-24 * scale
    if zero_u:
        size = sqrt(mm)
        return Screw(zeros(3, symbolic), m / size, np.inf, size)
    return Screw(cross3(u, m) / uu, u / sqrt(uu), (u @ m) / uu, sqrt(uu))


def screw_of_twist(v):
    """Axis, pitch and magnitude of a twist (inverse of :func:`twist_from_screw`).

    Parameters
    ----------
    v : array_like, shape (6,)
        Twist ``[v_O; w]``; a zero twist raises ValueError.

    Returns
    -------
    Screw
        For ``w = 0`` (pure translation) the pitch is ``inf`` and the magnitude is ``|v_O|``.

    Examples
    --------
    >>> import numpy as np
    >>> s = screw_of_twist(twist_from_screw([0, 1.0, 0], [1, 0, 0], pitch=0.2, magnitude=3.0))
    >>> bool(np.allclose(s.point, [0, 1, 0]) and np.isclose(s.pitch, 0.2) and np.isclose(s.magnitude, 3))
    True
    """
    v = as_array(v, "v")
    if v.shape != (6,):
        raise ValueError(f"v must have shape (6,), got {v.shape}")
    return _axis_of(v[3:], v[:3], "twist")


def screw_of_wrench(f):
    """Axis, pitch and magnitude of a wrench (inverse of :func:`wrench_from_screw`).

    Parameters
    ----------
    f : array_like, shape (6,)
        Wrench ``[f; n_O]``; a zero wrench raises ValueError.

    Returns
    -------
    Screw
        For ``f = 0`` (pure couple) the pitch is ``inf`` and the magnitude is ``|n_O|``.
    """
    f = as_array(f, "f")
    if f.shape != (6,):
        raise ValueError(f"f must have shape (6,), got {f.shape}")
    return _axis_of(f[:3], f[3:], "wrench")


def reciprocal_product(a, b):
    """Reciprocal product ``a_v·b_w + a_w·b_v`` of two screws in twist (axis) coordinates.

    For unit screws with pitches ``h_a, h_b``, twist angle ``alpha`` and distance
    ``d`` between axes it equals ``(h_a + h_b) cos(alpha) - d sin(alpha)``.
    Two screws are reciprocal when it vanishes.  The power of a twist ``v`` and a
    wrench ``f = [f; n]`` is ``v @ f``: the reciprocal product of ``v`` with the
    wrench's screw written in twist coordinates ``[n; f]``.

    Parameters
    ----------
    a, b : array_like, shape (..., 6)

    Returns
    -------
    float or ndarray, shape (...)

    References
    ----------
    Alexiou (1999) "Power and Energy".
    """
    a, b = as_array(a, "a"), as_array(b, "b")
    return (a[..., :3] * b[..., 3:]).sum(axis=-1) + (a[..., 3:] * b[..., :3]).sum(axis=-1)


def line_coordinates(point, direction):
    """Plücker coordinates ``[e; r x e]`` of a directed line (a unit force along it).

    The unit rotation about the same line is ``twist_from_screw(point, direction)``
    ``= [r x e; e]``: the same six numbers with the halves swapped.

    Parameters
    ----------
    point : array_like, shape (3,)
    direction : array_like, shape (3,)
        Normalised here.

    Returns
    -------
    ndarray, shape (6,)

    References
    ----------
    Alexiou (1999) "Screw Representations"; Alexiou (2023) eq. 30.
    """
    return wrench_from_screw(point, direction, 0, 1)


def line_through_points(p1, p2):
    """Plücker coordinates of the line from ``p1`` towards ``p2`` (see :func:`line_coordinates`).

    Parameters
    ----------
    p1, p2 : array_like, shape (3,)
        Two distinct points.

    Returns
    -------
    ndarray, shape (6,)
    """
    p1, p2 = as_array(p1, "p1"), as_array(p2, "p2")
    return line_coordinates(p1, p2 - p1)
