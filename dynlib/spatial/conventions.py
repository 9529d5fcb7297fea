"""Moving between 6-vector conventions: the angular-first order of Lecture 4 and Kim (2012),
and the three planar components of a motion in the xy plane.

Chapter: *Screws, twists and wrenches* (the two orders side by side); Alexiou (1999)
"Planar Screws".
"""

from __future__ import annotations

import numpy as np

from ..core.backend import as_array, check_shape, is_symbolic, zeros

__all__ = [
    "angular_first_permutation",
    "to_angular_first",
    "from_angular_first",
    "planar_components",
    "planar_matrix",
    "from_planar",
]

PLANAR_INDICES = (0, 1, 5)  # (vx, vy, wz) of a twist, (fx, fy, nz) of a wrench


def angular_first_permutation():
    """The 6×6 permutation ``P`` taking our linear-first vectors to angular-first ones.

    ``x_af = P @ x``; matrices map as ``M_af = P @ M @ P``.  ``P`` is symmetric and
    its own inverse.  Lecture 4 (Featherstone) and Kim (2012) use the angular-first order.

    Returns
    -------
    ndarray, shape (6, 6)
    """
    P = np.zeros((6, 6))
    P[:3, 3:] = np.eye(3)
    P[3:, :3] = np.eye(3)
    return P


def to_angular_first(x):
    """Reorder 6-vectors from ``[linear; angular]`` to ``[angular; linear]``.

    Parameters
    ----------
    x : array_like, shape (..., 6)

    Returns
    -------
    ndarray, shape (..., 6)
    """
    x = as_array(x, "x")
    check_shape(x, (6,), "x")
    return np.concatenate([x[..., 3:], x[..., :3]], axis=-1)


def from_angular_first(x):
    """Reorder 6-vectors from ``[angular; linear]`` to our ``[linear; angular]``.

    Parameters
    ----------
    x : array_like, shape (..., 6)

    Returns
    -------
    ndarray, shape (..., 6)
    """
    return to_angular_first(x)


def planar_components(x):
    """The planar components ``(vx, vy, wz)`` of a twist or ``(fx, fy, nz)`` of a wrench.

    Parameters
    ----------
    x : array_like, shape (..., 6)
        Twists or wrenches (for a 6×k subspace ``S`` use ``planar_components(S.T).T``).

    Returns
    -------
    ndarray, shape (..., 3)

    References
    ----------
    Alexiou (1999) "Planar Screws".
    """
    x = as_array(x, "x")
    check_shape(x, (6,), "x")
    return x[..., list(PLANAR_INDICES)]


def planar_matrix(M):
    """The 3×3 planar block of a 6×6 operator (inertia, transform, cross-product matrix).

    Parameters
    ----------
    M : array_like, shape (..., 6, 6)

    Returns
    -------
    ndarray, shape (..., 3, 3)
    """
    M = as_array(M, "M")
    check_shape(M, (6, 6), "M")
    idx = list(PLANAR_INDICES)
    return M[..., idx, :][..., :, idx]


def from_planar(x):
    """Embed planar components ``(vx, vy, wz)`` into a 6-vector with zero out-of-plane parts.

    Parameters
    ----------
    x : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 6)
    """
    x = as_array(x, "x")
    check_shape(x, (3,), "x")
    out = zeros(x.shape[:-1] + (6,), is_symbolic(x))
    out[..., list(PLANAR_INDICES)] = x
    return out
