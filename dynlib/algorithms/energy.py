"""Mass properties of a whole tree: world-frame inertias, energy, momentum, centre of mass.

Chapter: *Spatial inertia and the Newton–Euler equations*; Alexiou (1999) "Power and
Energy" (``K = v·I v / 2``); Lecture 4 "Spatial Momentum".
"""

from __future__ import annotations

from ..core.backend import matvec
from ..multibody.kinematics import centres_of_mass, force_about_origin, state_kinematics
from ..multibody.model import check_state

__all__ = [
    "system_kinetic_energy",
    "system_potential_energy",
    "system_energy",
    "system_momentum",
    "system_centre_of_mass",
]


def system_kinetic_energy(model, q, qd):
    """Kinetic energy ``sum_i v_i·I_i v_i / 2`` of all bodies.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
    qd : array_like, shape (nv,) or (..., nv)

    Returns
    -------
    float or sympy expression, or ndarray of shape (...) for a batch
    """
    return _kinetic(state_kinematics(check_state(model, q, qd=qd))[0])


def _kinetic(kin):
    return (kin.v * matvec(kin.I, kin.v)).sum(axis=(-2, -1)) / 2


def _centres(model, kin, r):
    """World centres of mass from the kinematics ``kin`` of a checked state, measured from its reference point ``r``."""
    return centres_of_mass(model, kin) + r[..., None, :]


def _potential(model, kin, r):
    """``-sum_i m_i g·c_i`` for the model of a checked state (exact when the state is symbolic)."""
    return -(model.mass * (_centres(model, kin, r) @ model.gravity)).sum(axis=-1)


def system_potential_energy(model, q):
    """Gravitational potential energy ``-sum_i m_i g·c_i`` (zero when every centre of mass is at the origin).

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)

    Returns
    -------
    float or sympy expression, or ndarray of shape (...) for a batch
    """
    state = check_state(model, q)
    return _potential(state.model, *state_kinematics(state))


def system_energy(model, q, qd):
    """Total mechanical energy (kinetic plus gravitational potential).

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
    qd : array_like, shape (nv,) or (..., nv)

    Returns
    -------
    float or sympy expression, or ndarray of shape (...) for a batch
    """
    state = check_state(model, q, qd=qd)
    kin, r = state_kinematics(state)
    return _kinetic(kin) + _potential(state.model, kin, r)


def system_momentum(model, q, qd):
    """Total spatial momentum ``sum_i I_i v_i`` (world frame, about the origin; force-type 6-vector).

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
    qd : array_like, shape (nv,) or (..., nv)

    Returns
    -------
    ndarray, shape (6,) or (..., 6)
    """
    kin, r = state_kinematics(check_state(model, q, qd=qd))
    h = matvec(kin.I, kin.v).sum(axis=-2)  # about the reference point r
    return h if kin.I.dtype == object else force_about_origin(h, r)


def system_centre_of_mass(model, q):
    """Mass and centre of mass of the whole tree.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)

    Returns
    -------
    mass : float
    com : ndarray, shape (3,) or (..., 3)
    """
    state = check_state(model, q)
    model = state.model
    com = _centres(model, *state_kinematics(state))
    mass = model.mass.sum()
    return mass, (model.mass[:, None] * com).sum(axis=-2) / mass


