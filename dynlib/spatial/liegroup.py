"""The Lie-group view of rigid motion: SE(3), its algebra se(3), Ad, ad, ad* and exp/log.

Kim (2012) writes twists angular first, ``V = (w, v)``.  Here every 6-vector
is **linear first**, ``V = [v; w]``, like the rest of dynlib; Kim's matrices
are ``P @ M @ P`` with ``P = angular_first_permutation()``.  With this
ordering the adjoint ``Ad_T`` *is* the Plücker motion transform of
:func:`dynlib.motion_transform`, ``ad_V`` *is* ``crm(V)`` and
``ad*_V = ad_V.T = -crf(V)`` (tests check each identity from the definitions).

Chapter: *Rigid-body motion and joints*; Kim (2012) §1, eqs. 3-8, 26-29.
"""

from __future__ import annotations

import numpy as np

from ..core.backend import (
    LARGEST_MAGNITUDE,
    acos,
    as_array,
    as_finite,
    check_finite,
    check_magnitude,
    check_rotation,
    cos,
    float_entries,
    is_symbolic,
    promote,
    sin,
    solve,
    sqrt,
    zeros,
)
from .algebra import motion_transform, skew, unskew

__all__ = [
    "homogeneous",
    "homogeneous_inverse",
    "rotation_translation",
    "hat",
    "vee",
    "Ad",
    "Ad_dual",
    "ad",
    "ad_dual",
    "exp_so3",
    "log_so3",
    "exp_se3",
    "log_se3",
]


def homogeneous(R, p):
    """4×4 homogeneous matrix ``T = [[R, p], [0, 1]]`` of a pose.

    Parameters
    ----------
    R : array_like, shape (3, 3)
    p : array_like, shape (3,)

    Returns
    -------
    ndarray, shape (4, 4)

    References
    ----------
    Kim (2012) eq. 3.
    """
    R, p = as_array(R, "R"), as_array(p, "p")
    if R.shape != (3, 3) or p.shape != (3,):
        raise ValueError(f"R must have shape (3, 3) and p shape (3,), got {R.shape} and {p.shape}")
    check_magnitude(float_entries(R), "R")
    check_magnitude(float_entries(p), "p")
    R, p = promote(R, p)
    T = zeros((4, 4), is_symbolic(R, p))
    T[:3, :3] = R
    T[:3, 3] = p
    T[3, 3] = 1
    return T


def rotation_translation(T):
    """The rotation and translation of a homogeneous matrix.

    Parameters
    ----------
    T : array_like, shape (4, 4)
        Finite (entries at most 1e40), with last row ``[0, 0, 0, 1]`` (within 1e-9).

    Returns
    -------
    R : ndarray, shape (3, 3)
    p : ndarray, shape (3,)
    """
    T = as_array(T, "T")
    if T.shape != (4, 4):
        raise ValueError(f"T must have shape (4, 4), got {T.shape}")
    check_magnitude(float_entries(T), "T")
    if not is_symbolic(T):
        a, b, c, d = T[3].tolist()
        if abs(a) + abs(b) + abs(c) + abs(d - 1) > 1e-9:
            raise ValueError(f"T must be a homogeneous matrix with last row [0, 0, 0, 1], got {T[3].tolist()}")
    return T[:3, :3], T[:3, 3]


def homogeneous_inverse(T):
    """Inverse pose ``[[R.T, -R.T p], [0, 1]]``, without a matrix inverse.

    Parameters
    ----------
    T : array_like, shape (4, 4)
        A pose: ``R`` must be a rotation (not checked here: the inverse is its transpose).

    Returns
    -------
    ndarray, shape (4, 4)

    References
    ----------
    Kim (2012) eq. 4.
    """
    R, p = rotation_translation(T)
    return homogeneous(R.T, -R.T @ p)


def hat(V):
    """4×4 matrix of a twist ``V = [v; w]``: ``[[skew(w), v], [0, 0]]`` (Kim eq. 5).

    Parameters
    ----------
    V : array_like, shape (6,)

    Returns
    -------
    ndarray, shape (4, 4)
    """
    V = as_finite(V, (6,), "V", batch=False)
    M = zeros((4, 4), is_symbolic(V))
    M[:3, :3] = skew(V[3:])
    M[:3, 3] = V[:3]
    return M


def vee(M):
    """The twist ``[v; w]`` of a 4×4 se(3) matrix (inverse of :func:`hat`).

    Parameters
    ----------
    M : array_like, shape (4, 4)

    Returns
    -------
    ndarray, shape (6,)
    """
    M = as_array(M, "M")
    if M.shape != (4, 4):
        raise ValueError(f"M must have shape (4, 4), got {M.shape}")
    check_magnitude(float_entries(M), "M")
    return np.concatenate([M[:3, 3], unskew(M[:3, :3])])


def Ad(T):
    """Adjoint ``Ad_T`` of a pose as a 6×6 matrix: ``Ad_T V = vee(T hat(V) T^-1)``.

    Linear first this is ``[[R, skew(p) R], [0, R]]``, the Plücker motion transform
    from the frame described by ``T`` to its reference frame.

    Parameters
    ----------
    T : array_like, shape (4, 4)

    Returns
    -------
    ndarray, shape (6, 6)

    References
    ----------
    Kim (2012) eqs. 6-7 (angular first there).

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import rotation_about_axis
    >>> T = homogeneous(rotation_about_axis([1, 1, 0], 0.3), [1.0, 2.0, 3.0])
    >>> V = np.arange(1.0, 7.0)
    >>> bool(np.allclose(Ad(T) @ V, vee(T @ hat(V) @ homogeneous_inverse(T))))
    True
    """
    R, p = rotation_translation(T)
    return motion_transform(R, p)


def Ad_dual(T):
    """Coadjoint ``Ad*_T = Ad_T.T``: maps a wrench in T's reference frame into T's frame.

    It is the inverse of the force transform in the other direction,
    ``Ad_dual(T) == inverse_transform(force_transform(R, p))``.

    Parameters
    ----------
    T : array_like, shape (4, 4)

    Returns
    -------
    ndarray, shape (6, 6)

    References
    ----------
    Kim (2012) eqs. 8 and 13.
    """
    return Ad(T).T


def ad(V):
    """Lie bracket matrix ``ad_V``: ``ad_V W = vee(hat(V) hat(W) - hat(W) hat(V))``.

    Linear first, ``ad_V == crm(V)``; it is the derivative of ``Ad`` at the identity.

    Parameters
    ----------
    V : array_like, shape (6,)

    Returns
    -------
    ndarray, shape (6, 6)

    References
    ----------
    Kim (2012) eq. 27.
    """
    V = as_finite(V, (6,), "V", batch=False)
    W, v = skew(V[3:]), skew(V[:3])
    M = zeros((6, 6), is_symbolic(V))
    M[:3, :3] = W
    M[3:, 3:] = W
    M[:3, 3:] = v
    return M


def ad_dual(V):
    """Co-bracket ``ad*_V = ad_V.T = -crf(V)``; rigid-body dynamics read ``F = I dV - ad*_V I V``.

    Parameters
    ----------
    V : array_like, shape (6,)

    Returns
    -------
    ndarray, shape (6, 6)

    References
    ----------
    Kim (2012) eqs. 29 and 31.
    """
    return ad(V).T


def _so3_coefficients(theta, symbolic):
    """``sin(t)/t`` and ``(1 - cos t)/t^2`` with Taylor series near zero."""
    if symbolic:
        return sin(theta) / theta, (1 - cos(theta)) / theta**2
    if theta < 1e-6:
        t2 = theta * theta
        return 1 - t2 / 6, 0.5 - t2 / 24
    return np.sin(theta) / theta, (1 - np.cos(theta)) / (theta * theta)


def exp_so3(w):
    """Rotation matrix ``exp(skew(w))``: angle ``|w|`` about ``w / |w|``.

    Parameters
    ----------
    w : array_like, shape (3,)

    Returns
    -------
    ndarray, shape (3, 3)
    """
    w = as_array(w, "w")
    if w.shape != (3,):
        raise ValueError(f"w must have shape (3,), got {w.shape}")
    symbolic = is_symbolic(w)
    theta = sqrt(w @ w)
    if symbolic and theta == 0:
        return np.eye(3, dtype=object)
    if not symbolic and not theta <= LARGEST_MAGNITUDE:  # NaN, infinity or too large: one comparison
        check_finite(w, "w")
        raise ValueError(f"w must have norm at most {LARGEST_MAGNITUDE:g}, got {theta:g}")
    A, B = _so3_coefficients(theta, symbolic)
    W = skew(w)
    return np.eye(3, dtype=int) + A * W + B * (W @ W)


def log_so3(R):
    """Rotation vector ``w`` with ``exp_so3(w) == R`` and ``|w| <= pi``.

    Parameters
    ----------
    R : array_like, shape (3, 3)

    Returns
    -------
    ndarray, shape (3,)
    """
    R = as_array(R, "R")
    if R.shape != (3, 3):
        raise ValueError(f"R must have shape (3, 3), got {R.shape}")
    check_rotation(R, "R")
    if is_symbolic(R):
        theta = acos((np.trace(R) - 1) / 2)
        return theta / sin(theta) * unskew(R)
    cos_theta = np.clip((np.trace(R) - 1) / 2, -1.0, 1.0)
    theta = float(np.arccos(cos_theta))
    axis_sin = unskew(R)  # skew part of R: sin(theta) * axis
    if theta < 1e-6:
        return axis_sin * (1 + theta * theta / 6)
    if np.pi - theta > 1e-4:
        return axis_sin * (theta / np.sin(theta))
    # near pi: axis from the symmetric part R + R.T = 2 cos t 1 + 2 (1 - cos t) a a^T
    B = (R + R.T) / 2 - cos_theta * np.eye(3)
    k = int(np.argmax(np.diag(B)))
    axis = B[k] / np.sqrt(B[k, k])
    if axis @ axis_sin < 0:
        axis = -axis
    return theta * axis / np.linalg.norm(axis)


def _left_jacobian(w, symbolic):
    """SO(3) left Jacobian ``J = 1 + (1-cos t)/t^2 W + (t - sin t)/t^3 W^2``."""
    theta = sqrt(w @ w)
    W = skew(w)
    if symbolic:
        if theta == 0:
            return np.eye(3, dtype=object)
        b, c = (1 - cos(theta)) / theta**2, (theta - sin(theta)) / theta**3
    elif theta < 1e-6:
        b, c = 0.5 - theta * theta / 24, 1 / 6 - theta * theta / 120
    else:
        b = (1 - np.cos(theta)) / theta**2
        c = (theta - np.sin(theta)) / theta**3
    return np.eye(3, dtype=int) + b * W + c * (W @ W)


def exp_se3(V):
    """Pose ``exp(hat(V))`` reached by following the twist ``V = [v; w]`` for unit time.

    Parameters
    ----------
    V : array_like, shape (6,)

    Returns
    -------
    ndarray, shape (4, 4)
    """
    V = as_array(V, "V")
    if V.shape != (6,):
        raise ValueError(f"V must have shape (6,), got {V.shape}")
    w = V[3:]
    check_magnitude(float_entries(V), "V")
    return homogeneous(exp_so3(w), _left_jacobian(w, is_symbolic(V)) @ V[:3])


def log_se3(T):
    """Twist ``V = [v; w]`` with ``exp_se3(V) == T`` and ``|w| <= pi``.

    Parameters
    ----------
    T : array_like, shape (4, 4)

    Returns
    -------
    ndarray, shape (6,)
    """
    R, p = rotation_translation(as_array(T, "T"))
    w = log_so3(R)
    J = _left_jacobian(w, is_symbolic(R, p))
    v = solve(J, p, "the SO(3) left Jacobian")
    return np.concatenate([v, w])
