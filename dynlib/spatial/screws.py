"""Screws: lines with a pitch, and the twists and wrenches that are screws with a magnitude.

A twist about a screw through point ``r`` with unit direction ``e`` and pitch
``h`` is ``w [r x e + h e; e]``; a wrench along it is ``F [e; r x e + h e]``.
Infinite pitch gives a pure translation ``[V e; 0]`` or a pure couple ``[0; N e]``.

The screws ``cos(theta) a + sin(theta) b`` of two twists sweep a ruled surface,
the cylindroid; :func:`dynlib.cylindroid` gives their axes and :func:`dynlib.principal_screws`
the two of extreme pitch.

Chapter: *Screws, twists and wrenches*; Alexiou (1999) "Screw Representations",
"Twist as a Screw", "Wrench as a Screw", "Screw Cylindroid".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.backend import (
    LARGEST_MAGNITUDE,
    as_array,
    as_finite,
    broadcast_batch,
    check_finite,
    check_magnitude,
    check_scalar,
    cos,
    exact,
    is_symbolic,
    sin,
    sqrt,
    zeros,
)
from .algebra import cross3
from .rotations import unit_axis

__all__ = [
    "Screw",
    "twist_from_screw",
    "wrench_from_screw",
    "screw_of_twist",
    "screw_of_wrench",
    "reciprocal_product",
    "line_coordinates",
    "line_through_points",
    "cylindroid",
    "principal_screws",
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
    check_scalar(pitch, "pitch", -LARGEST_MAGNITUDE, LARGEST_MAGNITUDE, allow_inf=True)
    check_scalar(magnitude, "magnitude", -LARGEST_MAGNITUDE, LARGEST_MAGNITUDE)
    infinite = not is_symbolic(pitch) and np.isinf(pitch)
    r = None if infinite else as_array(point, "point")
    if r is not None and r.shape != (3,):
        raise ValueError(f"point must have shape (3,), got {r.shape}")
    if r is not None:
        check_magnitude(r, "point")
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
    check_magnitude(v, "v")
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
    check_magnitude(f, "f")
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
    a, b = as_finite(a, (6,), "a"), as_finite(b, (6,), "b")
    broadcast_batch((a, 1, "a"), (b, 1, "b"))
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
    p1, p2 = as_finite(p1, (3,), "p1", batch=False), as_finite(p2, (3,), "p2", batch=False)
    return line_coordinates(p1, p2 - p1)


def _two_twists(a, b):
    a, b = as_array(a, "a"), as_array(b, "b")
    if a.shape != (6,) or b.shape != (6,):
        raise ValueError(f"a and b must have shape (6,), got {a.shape} and {b.shape}")
    check_magnitude(a, "a")
    check_magnitude(b, "b")
    return a, b


def cylindroid(a, b, theta):
    """Screws of the pencil ``cos(theta) a + sin(theta) b`` of two twists (the cylindroid).

    Their axes all cross the common normal of ``a`` and ``b`` at right angles and
    sweep a ruled surface; see :func:`principal_screws` for its centre.

    Parameters
    ----------
    a, b : array_like, shape (6,)
        Twists ``[v_O; w]`` (linear first), float or sympy.
    theta : float, sympy expression or array_like, shape (n,)
        Angles in the pencil.

    Returns
    -------
    Screw
        For a scalar ``theta`` the screw of ``cos(theta) a + sin(theta) b`` (as
        :func:`screw_of_twist`); for ``n`` angles each field gains a leading axis:
        point ``(n, 3)``, direction ``(n, 3)``, pitch ``(n,)``, magnitude ``(n,)``.

    References
    ----------
    Chapter *Screws, twists and wrenches* (``eq-screws-cylindroid``); Alexiou (1999)
    "Screw Cylindroid"; Hunt (1978), the cylindroid.

    Examples
    --------
    >>> import numpy as np
    >>> a = twist_from_screw([0, 0, 0], [1, 0, 0], pitch=0.1)
    >>> b = twist_from_screw([0, 0, 0], [0, 1, 0], pitch=0.5)
    >>> s = cylindroid(a, b, [0.0, np.pi / 4])   # the second axis sits at z = (0.5 - 0.1) / 2
    >>> bool(np.allclose(s.pitch, [0.1, 0.3]) and np.allclose(s.point[:, 2], [0, 0.2]))
    True
    """
    a, b = _two_twists(a, b)
    if np.ndim(theta) == 0:
        check_scalar(theta, "theta")
        return screw_of_twist(cos(theta) * a + sin(theta) * b)
    theta = as_array(theta, "theta")
    check_finite(theta, "theta")
    screws = [screw_of_twist(cos(t) * a + sin(t) * b) for t in theta.ravel()]
    return Screw(*(np.array(field) for field in zip(*screws)))


def principal_screws(a, b):
    """The two screws of extreme pitch in the pencil of twists ``a`` and ``b``.

    The pitch of ``x1 a + x2 b`` is ``x·N x / x·D x`` with ``D_ij = w_i·w_j`` and
    ``N_ij = (w_i·v_j + w_j·v_i) / 2``; its stationary values solve ``N x = h D x``.
    The two principal axes meet at right angles at the centre of the cylindroid,
    on the common normal of ``a`` and ``b``.

    Parameters
    ----------
    a, b : array_like, shape (6,)
        Twists ``[v_O; w]`` whose angular parts are not parallel (float).

    Returns
    -------
    pitches : ndarray, shape (2,)
        Smallest and largest pitch of the pencil.
    twists : ndarray, shape (2, 6)
        The principal screws as twists with unit angular velocity, each signed so
        that the largest component of its angular velocity is positive.

    Raises
    ------
    ValueError
        If the angular parts of ``a`` and ``b`` are parallel or zero (the pencil
        then holds a pure translation and no pitch is extreme).

    References
    ----------
    Chapter *Screws, twists and wrenches* (``eq-screws-cylindroid``); Ball (1900), the cylindroid;
    Alexiou (1999) "Screw Cylindroid".

    Examples
    --------
    >>> import numpy as np
    >>> a = twist_from_screw([0, 0, 0.3], [1, 1, 0], pitch=0.2)
    >>> b = twist_from_screw([0, 0, 0.3], [1, -1, 0], pitch=-0.4)
    >>> h, S = principal_screws(a + b, a - b)     # another basis of the same pencil
    >>> bool(np.allclose(h, [-0.4, 0.2]))
    True
    """
    from scipy.linalg import eigh

    a, b = _two_twists(a, b)
    A = np.stack([a, b])
    if is_symbolic(A) or not np.all(np.isfinite(A)):
        raise ValueError("a and b must be finite float twists")
    w, v = A[:, 3:], A[:, :3]
    D = w @ w.T
    N = (w @ v.T + v @ w.T) / 2
    if np.linalg.det(D) <= 1e-12 * np.trace(D) ** 2:
        raise ValueError("the angular parts of a and b must not be parallel or zero")
    pitches, x = eigh(N, D)
    twists = x.T @ A
    w = twists[:, 3:]
    sign = np.sign(w[np.arange(2), np.argmax(np.abs(w), axis=1)])
    return pitches, twists * (sign / np.linalg.norm(w, axis=1))[:, None]
