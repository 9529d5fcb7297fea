"""Subspace decompositions of a joint: what it lets a body do and what it resists.

A joint's motion subspace ``s`` (n x k; n = 6, or 3 for planar components) and a body
inertia ``I`` give active/reactive accelerations ``s, U`` and active/reaction forces
``T, R`` with ``[s U].T @ [T R] = 1``, so that ``a = s psi + U gamma``
(``psi = T.T a``, ``gamma = R.T a``) and ``f = T Q + R mu`` (``Q = s.T f``, ``mu = U.T f``).

Chapter: *Projective geometry and subspace decompositions*; Alexiou (1999) "Arbitrary /
Basic / Pseudo-Inverse Decomposition", "Subspaces", "Component Projections", "Inertia
Decomposition", "Mobility Decomposition", "Projected Accelerations", "Projected Forces".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.backend import (
    as_array,
    as_finite,
    as_spd_matrix,
    check_magnitude,
    float_entries,
    is_exactly_zero,
    is_symbolic,
    magnitude,
    promote,
    quoted,
    solve,
    to_sympy,
)

__all__ = [
    "Decomposition",
    "reaction_subspace",
    "basic_decomposition",
    "subspace_decomposition",
    "dual_decomposition",
    "motion_components",
    "force_components",
    "projected_acceleration",
    "projected_force",
]


class Decomposition(NamedTuple):
    """Bases of motion and force space adapted to a joint (columns are n-vectors, n = 6 or 3).

    Attributes
    ----------
    s : ndarray, shape (n, k)
        Active accelerations: the joint's motion subspace.
    U : ndarray, shape (n, n - k)
        Reactive accelerations: the motions reaction forces produce.
    T : ndarray, shape (n, k)
        Active forces: they move the joint without loading its reactions.
    R : ndarray, shape (n, n - k)
        Reaction forces: no power on the joint, ``R.T @ s = 0``.

    References
    ----------
    Alexiou (1999) "Subspaces";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """

    s: np.ndarray
    U: np.ndarray
    T: np.ndarray
    R: np.ndarray


def _rank(A):
    return to_sympy(A).rank(simplify=True) if is_symbolic(A) else np.linalg.matrix_rank(A)


def _check_subspace(s, name, n=None, k=None):
    s = as_array(s, name)
    s = s[:, None] if s.ndim == 1 else s
    if s.ndim != 2 or (s.shape != (n, k) if n is not None else not 1 <= s.shape[1] <= s.shape[0]):
        want = "(n, k) with 1 <= k <= n" if n is None else f"({n}, {k})"
        raise ValueError(f"{name} must have shape {want}, got {s.shape}")
    check_magnitude(float_entries(s), name)
    if _rank(s) != s.shape[1]:
        raise ValueError(f"{name} must have full column rank {s.shape[1]}, got rank {_rank(s)}")
    return s


def reaction_subspace(s):
    """A basis ``R`` of the forces that do no work on the joint, ``R.T @ s = 0``.

    Numeric ``s`` gives orthonormal columns (SVD), symbolic ``s`` an exact null-space basis.

    Parameters
    ----------
    s : array_like, shape (n, k) or (n,)
        Motion subspace of full column rank ``k``.

    Returns
    -------
    ndarray, shape (n, n - k)

    References
    ----------
    Alexiou (1999) "Pseudo-Inverse Decomposition" (``R^T s = 0``);
    chapter *Projective geometry and subspace decompositions* of the course book.

    Examples
    --------
    >>> import numpy as np
    >>> s = np.array([0, 0, 0, 0, 0, 1.0])           # revolute about the z axis
    >>> bool(np.allclose(reaction_subspace(s).T @ s, 0))
    True
    """
    s = _check_subspace(s, "s")
    n, k = s.shape
    if not is_symbolic(s):
        return np.linalg.svd(s)[0][:, k:]
    basis = to_sympy(s).T.nullspace(simplify=True)
    return np.array([list(b) for b in basis], dtype=object).reshape(n - k, n).T


def basic_decomposition(s, I, R=None):
    """The basic decomposition ``T = I s``, ``U = I^-1 R`` (not normalised).

    Inertia maps active accelerations to active forces and reactive accelerations to
    reaction forces; ``R.T s = 0`` and ``U.T T = 0`` hold but ``s.T T`` and ``R.T U`` are
    ``s.T I s`` and ``R.T I^-1 R``, not identities.

    Parameters
    ----------
    s : array_like, shape (n, k) or (n,)
    I : array_like, shape (n, n)
        Symmetric positive definite inertia.
    R : array_like, shape (n, n - k), optional
        Any basis of the reaction forces (default :func:`reaction_subspace`).

    Returns
    -------
    Decomposition

    References
    ----------
    Alexiou (1999) "Basic Decomposition";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    s = _check_subspace(s, "s")
    n, k = s.shape
    I = as_spd_matrix(I, n)
    R = reaction_subspace(s) if R is None else _check_subspace(R, "R", n, n - k)
    work = R.T @ s
    nonzero = not np.all(is_exactly_zero(work)) if is_symbolic(work) else (
        np.any(np.abs(work) > 1e-10 * magnitude(R) * magnitude(s)))
    if nonzero:
        raise ValueError("R must do no work on the joint: R.T @ s must be zero")
    s, I, R = promote(s, I, R)
    return Decomposition(s, solve(I, R, "the inertia I"), I @ s, R)


def subspace_decomposition(s, I, R=None):
    """The pseudo-inverse decomposition ``T = I s (s^T I s)^-1``, ``U = I^-1 R (R^T I^-1 R)^-1``.

    The basic decomposition normalised so that ``[s U].T @ [T R] = 1``: ``s.T T = 1``,
    ``R.T U = 1``, ``U.T T = 0``, ``R.T s = 0``; hence ``s T.T + U R.T = 1`` on motions
    and ``T s.T + R U.T = 1`` on forces.

    Parameters
    ----------
    s : array_like, shape (n, k) or (n,)
    I : array_like, shape (n, n)
    R : array_like, shape (n, n - k), optional
        Any basis of the reaction forces (default :func:`reaction_subspace`).

    Returns
    -------
    Decomposition

    References
    ----------
    Alexiou (1999) "Pseudo-Inverse Decomposition" (its printed ``T`` lacks the inverse);
    chapter *Projective geometry and subspace decompositions* of the course book.

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import random_inertia
    >>> I = random_inertia(np.random.default_rng(0))
    >>> s, U, T, R = subspace_decomposition(np.array([0, 0, 0, 0, 0, 1.0]), I)
    >>> bool(np.allclose(s @ T.T + U @ R.T, np.eye(6)))
    True
    """
    s, U_b, T_b, R = basic_decomposition(s, I, R)
    T = solve(s.T @ T_b, T_b.T, "s^T I s").T  # (s^T I s)^-1 is symmetric
    U = solve(R.T @ U_b, U_b.T, "R^T I^-1 R").T  # so is (R^T I^-1 R)^-1
    return Decomposition(s, U, T, R)


def dual_decomposition(s, U):
    """The arbitrary decomposition: any motion basis ``[s U]`` completed by its dual ``[T R] = [s U]^-T``.

    Parameters
    ----------
    s : array_like, shape (n, k) or (n,)
    U : array_like, shape (n, n - k)
        Any complement of ``s`` (``[s U]`` invertible).

    Returns
    -------
    Decomposition
        With ``[s U].T @ [T R] = 1``; :func:`subspace_decomposition` is the choice
        ``U`` spanning ``I^-1 R``.

    References
    ----------
    Alexiou (1999) "Arbitrary Decomposition";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    s = _check_subspace(s, "s")
    n, k = s.shape
    U = _check_subspace(U, "U", n, n - k)
    s, U = promote(s, U)
    A = np.concatenate([s, U], axis=1)
    if _rank(A) != n:
        raise ValueError("[s U] must be a basis of motion space (full rank)")
    TR = solve(A.T, np.eye(n, dtype=A.dtype), "the basis [s U]")
    return Decomposition(s, U, TR[:, :k], TR[:, k:])


def motion_components(dec, a):
    """Active and reactive components ``psi = T.T a``, ``gamma = R.T a``, so ``a = s psi + U gamma``.

    Parameters
    ----------
    dec : Decomposition
        With ``[s U].T @ [T R] = 1`` (pseudo-inverse or dual).
    a : array_like, shape (..., n)

    Returns
    -------
    psi : ndarray, shape (..., k)
    gamma : ndarray, shape (..., n - k)

    References
    ----------
    Alexiou (1999) "Component Projections";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    s, U, T, R = _check_decomposition(dec)
    a, T, R = promote(as_finite(a, (s.shape[0],), "a"), T, R)
    return a @ T, a @ R


def force_components(dec, f):
    """Active and reaction components ``Q = s.T f``, ``mu = U.T f``, so ``f = T Q + R mu``.

    Parameters
    ----------
    dec : Decomposition
        With ``[s U].T @ [T R] = 1`` (pseudo-inverse or dual).
    f : array_like, shape (..., n)

    Returns
    -------
    Q : ndarray, shape (..., k)
    mu : ndarray, shape (..., n - k)

    References
    ----------
    Alexiou (1999) "Component Projections";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    s, U, T, R = _check_decomposition(dec)
    f, s, U = promote(as_finite(f, (s.shape[0],), "f"), s, U)
    return f @ s, f @ U


def _check_decomposition(dec):
    """``dec`` as a Decomposition of arrays, after checking shapes, finiteness and ``[s U].T @ [T R] = 1``."""
    if not isinstance(dec, Decomposition):
        raise TypeError(
            f"dec must be a Decomposition (from subspace_decomposition or dual_decomposition), got {type(dec).__name__}"
        )
    s, U, T, R = (as_array(x, f"dec.{name}") for x, name in zip(dec, Decomposition._fields))
    n, k = s.shape if s.ndim == 2 else (0, 0)
    if not (s.ndim == 2 and T.shape == s.shape and U.shape == R.shape == (n, n - k)):
        raise ValueError(
            f"dec must hold s and T of shape (n, k), U and R of shape (n, n - k), got {s.shape}, {T.shape}, "
            f"{U.shape} and {R.shape}"
        )
    for x, name in zip((s, U, T, R), Decomposition._fields):
        check_magnitude(x, f"dec.{name}")
    if not is_symbolic(s, U, T, R):
        A, B = np.concatenate([s, U], axis=1), np.concatenate([T, R], axis=1)
        error = np.abs(A.T @ B - np.eye(n)).max()
        if not error <= 1e-8 * n * magnitude(A) * magnitude(B):
            raise ValueError(
                "dec must have [s U].T @ [T R] = 1 (subspace_decomposition or dual_decomposition), "
                f"off by {quoted(error)}"
            )
    return s, U, T, R


def _chain_inputs(dec, I, a_prev, kappa, Q, p, f_next):
    dec = _check_decomposition(dec)
    n, k = dec[0].shape
    I = as_spd_matrix(I, n)
    names = ("a_prev", "kappa", "Q", "p", "f_next")
    vectors = [as_finite(x, (m,), name) for x, m, name in zip((a_prev, kappa, Q, p, f_next), (n, n, k, n, n), names)]
    for x, name in zip(vectors, names):
        if x.ndim != 1:
            raise ValueError(f"{name} must be one vector, not a batch: got shape {x.shape}")
    return promote(*dec, I, *vectors)


def projected_acceleration(dec, I, a_prev, kappa, Q, p, f_next):
    """Acceleration of body i: ``a_i = s T^T I^-1 (T Q - p - f_next) + U R^T (a_prev + kappa)``.

    Parameters
    ----------
    dec : Decomposition
        :func:`subspace_decomposition` of joint i with inertia ``I``.
    I : array_like, shape (n, n)
    a_prev, kappa : array_like, shape (n,)
        Parent acceleration and velocity-product term ``v_i x s_i qd_i``.
    Q : array_like, shape (k,)
        Joint force ``s^T f_i``.
    p, f_next : array_like, shape (n,)
        Bias force ``v_i x* I v_i`` and the force body i exerts on its child.

    Returns
    -------
    ndarray, shape (n,)

    References
    ----------
    Alexiou (1999) "Projected Accelerations";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    s, U, T, R, I, a_prev, kappa, Q, p, f_next = _chain_inputs(
        dec, I, a_prev, kappa, Q, p, f_next
    )
    # T^T I^-1 (T Q - p - f_next)
    active = solve(I, T, "the inertia I").T @ (T @ Q - p - f_next)
    return s @ active + U @ (R.T @ (a_prev + kappa))


def projected_force(dec, I, a_prev, kappa, Q, p, f_next):
    """Joint force of body i: ``f_i = T Q + R U^T (I (a_prev + kappa) + f_next + p)``.

    Parameters
    ----------
    dec : Decomposition
        :func:`subspace_decomposition` of joint i with inertia ``I``.
    I : array_like, shape (n, n)
    a_prev, kappa, p, f_next : array_like, shape (n,)
        As in :func:`projected_acceleration`.
    Q : array_like, shape (k,)

    Returns
    -------
    ndarray, shape (n,)

    References
    ----------
    Alexiou (1999) "Projected Forces";
    chapter *Projective geometry and subspace decompositions* of the course book.
    """
    s, U, T, R, I, a_prev, kappa, Q, p, f_next = _chain_inputs(
        dec, I, a_prev, kappa, Q, p, f_next
    )
    return T @ Q + R @ (U.T @ (I @ (a_prev + kappa) + f_next + p))
