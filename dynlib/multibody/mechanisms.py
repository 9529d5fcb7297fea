"""Closed mechanisms: an open tree, the loop constraints that close it, and an assembled configuration;
driving one by a prescribed input motion, and the outline of its links for drawing.

Chapter: *Constrained chains: loops, multipliers and actuation*; Kim (2012) §3;
Alexiou (1999) "Planar Constrained Example".
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..spatial.inertia import planar_link_inertia, spatial_inertia
from ..spatial.liegroup import homogeneous
from .joints import Joint
from .kinematics import forward_kinematics
from .loops import PLANAR_POINT_AXES, LoopConstraint, dependent_motion, project_configuration
from .model import DEFAULT_GRAVITY, Model, check_configuration

__all__ = ["Mechanism", "four_bar", "piston_crank", "prescribed_motion", "body_outlines"]


class Mechanism(NamedTuple):
    """A closed mechanism: its open tree, the constraints that close it and an assembled configuration.

    Attributes
    ----------
    model : Model
    constraints : list of LoopConstraint
    q0 : ndarray, shape (nq,)
        A configuration satisfying the constraints.
    """

    model: Model
    constraints: list
    q0: np.ndarray


def _rod(mass, length):
    return spatial_inertia(mass, [length / 2, 0, 0], planar_link_inertia(mass * length**2 / 12))


def four_bar(lengths=(2.0, 0.8, 2.2, 1.6), masses=(1.0, 1.5, 1.2), crank_angle=np.pi / 3, gravity=DEFAULT_GRAVITY):
    """A planar four-bar linkage: crank and coupler in a chain, rocker hung from the ground.

    Body 0 (crank) turns about the origin, body 1 (coupler) about the crank's tip, body 2
    (rocker) about the ground pivot ``(ground, 0, 0)``.  One loop constraint pins the
    coupler's tip to the rocker's tip in the plane: three joints, two constraints, one
    degree of freedom.

    Parameters
    ----------
    lengths : (ground, crank, coupler, rocker)
    masses : (crank, coupler, rocker)
        Uniform links.
    crank_angle : float
        The crank angle of the assembled configuration ``q0``.
    gravity : array_like, shape (3,)

    Returns
    -------
    Mechanism

    References
    ----------
    Kim (2012) §3 (closed loops cut open and closed by constraints).
    """
    ground, crank, coupler, rocker = lengths
    offset = homogeneous(np.eye(3), [crank, 0.0, 0.0])
    model = Model(
        (-1, 0, -1),
        (Joint("revolute", [0, 0, 1]),) * 3,
        np.array([np.eye(4), offset, homogeneous(np.eye(3), [ground, 0.0, 0.0])]),
        np.array([_rod(masses[0], crank), _rod(masses[1], coupler), _rod(masses[2], rocker)]),
        gravity,
        ("crank", "coupler", "rocker"),
    )
    pin = LoopConstraint(1, 2, point_a=[coupler, 0, 0], point_b=[rocker, 0, 0], linear_axes=PLANAR_POINT_AXES)
    guess = np.array([crank_angle, -crank_angle / 2, np.pi / 2 + crank_angle / 4])
    q0 = project_configuration(model, guess, [pin], fixed=[0])
    return Mechanism(model, [pin], q0)


def piston_crank(crank=0.5, rod=1.5, masses=(1.0, 0.8, 0.6), crank_angle=np.pi / 4, gravity=DEFAULT_GRAVITY):
    """A planar piston-crank (slider-crank): crank, connecting rod and a piston sliding along x.

    Body 0 (crank) turns about the origin, body 1 (rod) about the crank pin, body 2
    (piston) slides along the world x axis.  One loop constraint pins the rod's far end to
    the piston in the plane: three joints, two constraints, one degree of freedom.

    Parameters
    ----------
    crank, rod : float
        Lengths.
    masses : (crank, rod, piston)
    crank_angle : float
        The crank angle of the assembled configuration ``q0``.
    gravity : array_like, shape (3,)

    Returns
    -------
    Mechanism

    References
    ----------
    Alexiou (1999) "Planar Constrained Example" (piston-crank with contact forces).
    """
    piston_inertia = spatial_inertia(masses[2], [0, 0, 0], planar_link_inertia(masses[2] * 0.01))
    model = Model(
        (-1, 0, -1),
        (Joint("revolute", [0, 0, 1]), Joint("revolute", [0, 0, 1]), Joint("prismatic", [1, 0, 0])),
        np.array([np.eye(4), homogeneous(np.eye(3), [crank, 0.0, 0.0]), np.eye(4)]),
        np.array([_rod(masses[0], crank), _rod(masses[1], rod), piston_inertia]),
        gravity,
        ("crank", "rod", "piston"),
    )
    pin = LoopConstraint(1, 2, point_a=[rod, 0, 0], point_b=[0, 0, 0], linear_axes=PLANAR_POINT_AXES)
    x = crank * np.cos(crank_angle) + np.sqrt(rod**2 - (crank * np.sin(crank_angle)) ** 2)
    guess = np.array([crank_angle, -crank_angle - np.arcsin(crank * np.sin(crank_angle) / rod), x])
    q0 = project_configuration(model, guess, [pin], fixed=[0])
    return Mechanism(model, [pin], q0)


def prescribed_motion(mechanism, values, rates, accelerations, coordinate=0):
    """Drive a one-degree-of-freedom mechanism through a prescribed motion of one joint.

    At each sample the configuration is closed by :func:`project_configuration` with the
    driving coordinate held (starting from the previous sample, so the mechanism stays in
    one assembly branch), and the other joints' rates and accelerations follow from
    :func:`dependent_motion`.

    Parameters
    ----------
    mechanism : Mechanism
        Its ``q0`` is the first guess; every joint must have ``nq = nv``.
    values, rates, accelerations : array_like, shape (N,)
        The driving coordinate, its rate and its acceleration at each sample.
    coordinate : int
        Index of the driving coordinate.

    Returns
    -------
    q : ndarray, shape (N, nq)
    qd, qdd : ndarray, shape (N, nv)
        States and accelerations consistent with the constraints.

    References
    ----------
    Kim (2012) §3.1: inverse dynamics needs ``(q, qd, qdd)`` consistent with the constraints.
    """
    model, constraints, q = mechanism
    if model.nq != model.nv:
        raise ValueError(
            f"prescribed_motion needs nq = nv (no spherical or free joints), got nq={model.nq}, nv={model.nv}"
        )
    values, rates, accelerations = (np.atleast_1d(np.asarray(x, float)) for x in (values, rates, accelerations))
    if not values.shape == rates.shape == accelerations.shape or values.ndim != 1:
        raise ValueError(f"values, rates and accelerations must be 1-D of one length, got {values.shape}, "
                         f"{rates.shape}, {accelerations.shape}")
    qs, qds, qdds = [], [], []
    for value, rate, acceleration in zip(values, rates, accelerations):
        q = np.array(q, float)
        q[coordinate] = value
        q = project_configuration(model, q, constraints, fixed=[coordinate])
        qd, qdd = dependent_motion(model, q, constraints, [coordinate], [rate], [acceleration])
        qs.append(q)
        qds.append(qd)
        qdds.append(qdd)
    return np.array(qs), np.array(qds), np.array(qdds)


def body_outlines(model, q, constraints=()):
    """The points that outline each body, for drawing a mechanism: its joint, its children's joints, its loop points.

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,)
    constraints : sequence of LoopConstraint and JointCoupling
        The points of the loop constraints are drawn (joint couplings have none).

    Returns
    -------
    list of ndarray, shape (k_i, 3)
        For each body, world positions: its own joint origin first, then the joint frames of
        its children, then the constraint points fixed in it.
    """
    kin = forward_kinematics(model, check_configuration(model, q))
    outlines = [[kin.p[i]] for i in range(model.n_bodies)]
    for i in range(model.n_bodies):
        k = model.parent[i]
        if k >= 0:
            outlines[k].append(kin.p[k] + kin.R[k] @ model.placements[i][:3, 3])
    for c in constraints:
        if not isinstance(c, LoopConstraint):
            continue  # a joint coupling has no points
        for body, point in ((c.body_a, c.point_a), (c.body_b, c.point_b)):
            if body >= 0:
                outlines[body].append(kin.p[body] + kin.R[body] @ point)
    return [np.array(points, float) for points in outlines]
