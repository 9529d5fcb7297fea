"""Mass properties of a whole tree: world-frame inertias, energy, momentum, centre of mass.

Chapter: *Spatial inertia and the Newton–Euler equations*; Alexiou (1999) "Power and
Energy" (``K = v·I v / 2``); Lecture 4 "Spatial Momentum".
"""

from __future__ import annotations

import numpy as np

from ._backend import is_symbolic, matvec, zeros
from .inertia import momentum
from .kinematics import centres_of_mass, forward_kinematics
from .model import check_velocity
from .spatial import skew

__all__ = [
    "world_inertias",
    "system_kinetic_energy",
    "system_potential_energy",
    "system_energy",
    "system_momentum",
    "system_centre_of_mass",
    "gravity_acceleration",
    "gravity_wrenches",
]


def world_inertias(model, kin):
    """Spatial inertia of every body in world coordinates about the world origin.

    ``I_i = X*_0i I_i^body X_i0`` (Alexiou (2023) eq. 9 with ``R_i I^body R_i^T``, eq. 8),
    evaluated from the mass ``m``, the world centre of mass ``c`` and the rotational inertia
    about it, ``R_i I_com R_i^T``, without forming the 6×6 transforms::

        I_i = [[m 1, -m [c]], [m [c], R_i I_com R_i^T - m [c][c]]]

    Parameters
    ----------
    model : Model
    kin : Kinematics
        From :func:`dynlib.forward_kinematics` for the same configuration (or batch).

    Returns
    -------
    ndarray, shape (n, 6, 6) or (..., n, 6, 6)

    References
    ----------
    Alexiou (2023) eqs. 8-9; Lecture 4 "Spatial Momentum" (parallel-axis theorem).
    """
    symbolic = model.symbolic or is_symbolic(kin.R)
    model = model.exact() if symbolic else model
    m = model.mass[:, None, None]
    C = skew(centres_of_mass(model, kin))
    I = zeros(C.shape[:-2] + (6, 6), symbolic)
    I[..., :3, :3] = m * np.eye(3, dtype=int)
    I[..., :3, 3:] = -m * C
    I[..., 3:, :3] = m * C
    I[..., 3:, 3:] = kin.R @ model.inertia_com @ np.swapaxes(kin.R, -1, -2) - m * (C @ C)
    return I


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
    kin = forward_kinematics(model, q, check_velocity(model, qd, "qd", batch=True))
    return (kin.v * matvec(world_inertias(model, kin), kin.v)).sum(axis=(-2, -1)) / 2


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
    com = centres_of_mass(model, forward_kinematics(model, q))
    return -(model.mass * (com @ model.gravity)).sum(axis=-1)


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
    return system_kinetic_energy(model, q, qd) + system_potential_energy(model, q)


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
    kin = forward_kinematics(model, q, check_velocity(model, qd, "qd", batch=True))
    return matvec(world_inertias(model, kin), kin.v).sum(axis=-2)


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
    com = centres_of_mass(model, forward_kinematics(model, q))
    mass = model.mass.sum()
    return mass, (model.mass[:, None] * com).sum(axis=-2) / mass


def gravity_acceleration(model):
    """The uniform gravity field as a spatial acceleration ``[g; 0]`` (linear part first).

    The recursive algorithms start the base with acceleration ``-gravity_acceleration(model)``
    (Lecture 4's trick): every body then feels gravity without a force term per body.

    Parameters
    ----------
    model : Model

    Returns
    -------
    ndarray, shape (6,)
    """
    return np.concatenate([model.gravity, np.zeros(3, dtype=model.gravity.dtype)])


def gravity_wrenches(model, kin):
    """The wrench of gravity on every body, world frame about the origin: ``I_i [g; 0]``.

    A uniform field pulls on body ``i`` with its weight ``m_i g`` through the centre of
    mass ``c_i``, so the wrench is ``[m_i g; c_i x m_i g]``, which is the body's world
    inertia applied to the spatial acceleration ``[g; 0]`` of :func:`gravity_acceleration`.

    Parameters
    ----------
    model : Model
    kin : Kinematics
        From :func:`dynlib.forward_kinematics` for the same configuration.

    Returns
    -------
    ndarray, shape (n, 6)

    References
    ----------
    Chapter *Spatial inertia and the Newton–Euler equations* (``ch-inertia``), the
    spinning top; Lecture 4 "Recursive Newton Euler" (the gravity term ``I_i a_g``).

    Examples
    --------
    >>> import numpy as np
    >>> from dynlib import forward_kinematics, planar_chain
    >>> model = planar_chain(1, length=2.0, mass=3.0)             # a rod along x, y up
    >>> f = gravity_wrenches(model, forward_kinematics(model, [0.0]))
    >>> bool(np.allclose(f[0], [0, -3 * 9.81, 0, 0, 0, -3 * 9.81 * 1.0]))
    True
    """
    return momentum(world_inertias(model, kin), gravity_acceleration(model))
