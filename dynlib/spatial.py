"""Spatial (6-D) vector algebra, linear part first.

A motion vector (twist) is ``[v_O; w]`` and a force vector (wrench) is
``[f; n_O]``, both in Plücker coordinates about the origin O of the frame
they are expressed in; power is ``twist @ wrench``.  All functions accept
leading batch axes, ``(..., 6)``, and sympy object arrays.

Chapter: *Screws, twists and wrenches* and *Spatial inertia* of the course
book; Alexiou (1999) "Spatial Transformations", "Spatial Inertia",
"Power and Energy"; Alexiou (2023) eq. 9.
"""

from __future__ import annotations

import numpy as np

from ._backend import as_array, check_shape, is_symbolic, promote, zeros

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
    "spatial_inertia",
    "inertia_parameters",
    "check_rotational_inertia",
    "transform_inertia",
    "kinetic_energy",
    "momentum",
    "angular_first_permutation",
    "to_angular_first",
    "from_angular_first",
    "planar_components",
    "planar_matrix",
    "from_planar",
    "random_inertia",
]

PLANAR_INDICES = (0, 1, 5)  # (vx, vy, wz) of a twist, (fx, fy, nz) of a wrench


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
    S = as_array(S, "S")
    check_shape(S, (3, 3), "S")
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
    a, b = as_array(a, "a"), as_array(b, "b")
    return np.stack(
        [
            a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
            a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
            a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
        ],
        axis=-1,
    )


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
    v, m = as_array(v, "v"), as_array(m, "m")
    w, vo = v[..., 3:], v[..., :3]
    return np.concatenate(
        [cross3(w, m[..., :3]) + cross3(vo, m[..., 3:]), cross3(w, m[..., 3:])], axis=-1
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
    v, f = as_array(v, "v"), as_array(f, "f")
    w, vo = v[..., 3:], v[..., :3]
    return np.concatenate(
        [cross3(w, f[..., :3]), cross3(vo, f[..., :3]) + cross3(w, f[..., 3:])], axis=-1
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
    R, p = promote(as_array(R, "R"), as_array(p, "p"))
    check_shape(R, (3, 3), "R")
    check_shape(p, (3,), "p")
    batch = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    X = zeros(batch + (6, 6), is_symbolic(R, p))
    X[..., :3, :3] = R
    X[..., 3:, 3:] = R
    X[..., :3, 3:] = skew(p) @ R
    return X


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
    return np.swapaxes(inverse_transform(motion_transform(R, p)), -1, -2)


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
    Y = np.empty_like(X)
    for r in (slice(0, 3), slice(3, 6)):
        for c in (slice(0, 3), slice(3, 6)):
            Y[..., r, c] = np.swapaxes(X[..., r, c], -1, -2)
    return Y


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
        from ._backend import simplify

        if np.any(simplify(I_c - I_c.T) != 0):
            raise ValueError(f"{name} must be symmetric, got {I_c}")
        return
    scale = max(np.abs(I_c).max(), np.finfo(float).tiny)
    if not np.allclose(I_c, I_c.T, rtol=0, atol=1e-12 * scale):
        raise ValueError(f"{name} must be symmetric, got {I_c.tolist()}")
    moments = np.linalg.eigvalsh(I_c)
    if moments[0] <= 1e-12 * scale:
        raise ValueError(
            f"{name} must be positive definite; its principal moments are {moments.tolist()}"
        )
    if moments[0] + moments[1] < moments[2] * (1 - 1e-12):
        raise ValueError(
            f"{name} violates the triangle inequality of principal moments "
            f"(I1 + I2 >= I3): {moments.tolist()}"
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
    check_rotational_inertia(I_c, "inertia_com")
    symbolic = is_symbolic(mass, com, I_c)
    if symbolic:
        com, I_c = promote(com, I_c, mass)[:2]
    else:
        if np.ndim(mass) != 0:
            raise ValueError(f"mass must be a scalar, got shape {np.shape(mass)}")
        mass = float(mass)
        if not mass > 0:
            raise ValueError(f"mass must be positive, got {mass}")
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
    X, I = as_array(X, "X"), as_array(I, "I")
    check_shape(I, (6, 6), "I")
    X_inv = inverse_transform(X)
    return np.swapaxes(X_inv, -1, -2) @ I @ X_inv


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
    I, v = as_array(I, "I"), as_array(v, "v")
    return (v * (I @ v[..., None])[..., 0]).sum(axis=-1) / 2


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
    I, v = as_array(I, "I"), as_array(v, "v")
    return (I @ v[..., None])[..., 0]


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


def random_inertia(rng, mass_range=(0.5, 2.0), com_scale=0.3):
    """A random rigid-body spatial inertia (a uniform box, randomly rotated and offset).

    Parameters
    ----------
    rng : numpy.random.Generator
    mass_range : (float, float)
    com_scale : float
        Standard deviation of the centre-of-mass offset.

    Returns
    -------
    ndarray, shape (6, 6)
    """
    from .rotations import random_rotation

    mass = rng.uniform(*mass_range)
    a, b, c = rng.uniform(0.1, 1.0, size=3)
    moments = mass / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    R = random_rotation(rng)
    return spatial_inertia(mass, rng.normal(scale=com_scale, size=3), R @ np.diag(moments) @ R.T)
