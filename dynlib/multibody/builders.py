"""Model builders: serial chains from link parameters, planar chains, named examples and random trees.

Chapter: *Rigid-body motion and joints*; Alexiou (2023) §1 and §3.
"""

from __future__ import annotations

import numpy as np

from ..core.backend import as_array, as_finite, is_symbolic
from ..spatial.inertia import planar_link_inertia, random_inertia, spatial_inertia
from ..spatial.liegroup import homogeneous
from ..spatial.rotations import random_rotation
from .joints import JOINT_KINDS, Joint
from .model import DEFAULT_GRAVITY, Model

__all__ = [
    "serial_chain",
    "planar_chain",
    "double_pendulum",
    "alexiou_two_link",
    "random_tree",
]


def serial_chain(masses, com_offsets, lengths, inertias_com, axes=None, gravity=DEFAULT_GRAVITY):
    """A serial chain of revolute joints built from the link parameters of Alexiou (2023) §1.

    Body ``i`` has its frame at joint ``i``; its centre of mass lies ``c_i`` along
    its local x axis and the next joint ``L_i`` along it.  Joint ``i`` turns
    about ``z_i`` (local coordinates), so ``R_i = R_{i-1} rot(z_i, q_i)`` and
    ``r_{i+1} = r_i + R_i L_i x``; the first joint sits at the world origin.

    Parameters
    ----------
    masses : sequence, length n
    com_offsets : sequence, length n
        ``c_i``, distance of each centre of mass along the local x axis.
    lengths : sequence, length n
        ``L_i``, distance to the next joint along the local x axis (the last one
        only locates the tip).
    inertias_com : array_like, shape (n, 3, 3)
        Rotational inertia of each body about its centre of mass, body axes.
    axes : array_like, shape (n, 3), optional
        Joint axes ``z_i`` (default: all along z, a planar chain in the xy plane).
    gravity : array_like, shape (3,)

    Returns
    -------
    Model

    References
    ----------
    Alexiou (2023) eqs. 1-3 and 9 (with the link-length index of eq. 2 corrected;
    see the errata page).
    """
    n = len(masses)
    if len(com_offsets) != n or len(lengths) != n:
        raise ValueError(
            f"masses, com_offsets and lengths must have the same length, got "
            f"{n}, {len(com_offsets)}, {len(lengths)}"
        )
    inertias_com = as_array(inertias_com, "inertias_com")
    if inertias_com.shape != (n, 3, 3):
        raise ValueError(f"inertias_com must have shape ({n}, 3, 3), got {inertias_com.shape}")
    axes = np.tile([0.0, 0.0, 1.0], (n, 1)) if axes is None else as_array(axes, "axes")
    if axes.shape != (n, 3):
        raise ValueError(f"axes must have shape ({n}, 3), got {axes.shape}")
    for name, values in (("masses", masses), ("com_offsets", com_offsets), ("lengths", lengths)):
        as_finite(list(values), (n,), name, batch=False)  # every entry, the last length included
    symbolic = is_symbolic(as_array(list(masses)), as_array(list(com_offsets)), as_array(list(lengths)))
    dtype = object if symbolic else float
    placements = np.array([np.eye(4, dtype=dtype) for _ in range(n)])
    inertias = []
    for i in range(n):
        if i > 0:
            placements[i] = homogeneous(np.eye(3, dtype=dtype), np.array([lengths[i - 1], 0, 0], dtype=dtype))
        com = np.array([com_offsets[i], 0, 0], dtype=dtype)
        inertias.append(spatial_inertia(masses[i], com, inertias_com[i]))
    return Model(
        parent=tuple(range(-1, n - 1)),
        joints=tuple(Joint("revolute", axes[i]) for i in range(n)),
        placements=placements,
        inertias=np.array(inertias, dtype=dtype),
        gravity=gravity,
    )


def planar_chain(n, length=1.0, mass=1.0, gravity=DEFAULT_GRAVITY):
    """An n-link planar chain of uniform links along x, joints about z, first joint at the origin.

    Each link has mass ``mass``, length ``length``, centre of mass at mid-length and
    ``I_zz = mass * length**2 / 12`` (see :func:`planar_link_inertia`).

    Parameters
    ----------
    n : int
    length, mass : float or sympy expression
    gravity : array_like, shape (3,)

    Returns
    -------
    Model
    """
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    I_c = planar_link_inertia(mass * length**2 / 12)
    return serial_chain([mass] * n, [length / 2] * n, [length] * n, [I_c] * n, gravity=gravity)


def double_pendulum(masses=(1.0, 1.0), lengths=(1.0, 1.0), gravity=DEFAULT_GRAVITY):
    """A double pendulum of two uniform links (a compound pendulum) in the xy plane.

    With gravity along -y, ``q = (0, 0)`` holds both links horizontal along +x and
    ``q = (-pi/2, 0)`` lets them hang straight down.

    Parameters
    ----------
    masses : (m1, m2)
    lengths : (l1, l2)
    gravity : array_like, shape (3,)

    Returns
    -------
    Model
    """
    (m1, m2), (l1, l2) = masses, lengths
    inertias = [planar_link_inertia(m1 * l1**2 / 12), planar_link_inertia(m2 * l2**2 / 12)]
    return serial_chain([m1, m2], [l1 / 2, l2 / 2], [l1, l2], inertias, gravity=gravity)


def alexiou_two_link(m=None, L=None, gravity=(0, 0, 0)):
    """The two-link planar chain of the worked example of Alexiou (2023) §3.

    Two links of mass ``m`` and length ``L``, centres of mass at ``L/2`` and
    ``I_zz = m L**2 / 12``; with no arguments ``m`` and ``L`` are positive sympy
    symbols, so every quantity of eqs. 31-40 comes out exact.  The example has no
    gravity (an impact problem).

    Parameters
    ----------
    m, L : sympy expression or float, optional
    gravity : array_like, shape (3,)

    Returns
    -------
    Model
    """
    if m is None or L is None:
        import sympy

        m = sympy.Symbol("m", positive=True) if m is None else m
        L = sympy.Symbol("L", positive=True) if L is None else L
    I_c = planar_link_inertia(m * L**2 / 12)
    return serial_chain([m, m], [L / 2, L / 2], [L, L], [I_c, I_c], gravity=gravity)


def random_tree(n_bodies, rng, kinds=None, branching=0.4, depth_first=False, gravity=DEFAULT_GRAVITY):
    """A random tree of rigid bodies with mixed joint types, for tests (like spatial_v2's autoTree).

    Parameters
    ----------
    n_bodies : int
    rng : numpy.random.Generator or int
        Generator, or a seed for one.
    kinds : sequence of str, optional
        Joint kinds to draw from (default: every kind but ``"fixed"``).
    branching : float in [0, 1]
        Probability that a body attaches to a random earlier body instead of the
        previous one (0 gives a chain).
    depth_first : bool
        Renumber bodies depth-first (some reference libraries need it).
    gravity : array_like, shape (3,)

    Returns
    -------
    Model
        Random joint placements (rotation and offset), axes, pitches and inertias.
    """
    rng = np.random.default_rng(rng)
    if not isinstance(n_bodies, (int, np.integer)) or n_bodies < 1:
        raise ValueError(f"n_bodies must be a positive int, got {n_bodies!r}")
    kinds = [k for k in JOINT_KINDS if k != "fixed"] if kinds is None else list(kinds)
    unknown = set(kinds) - set(JOINT_KINDS)
    if unknown or not kinds:
        raise ValueError(f"kinds must be a non-empty subset of {sorted(JOINT_KINDS)}, got {kinds}")
    if not 0 <= branching <= 1:
        raise ValueError(f"branching must lie in [0, 1], got {branching}")
    parent = [-1]
    for i in range(1, n_bodies):
        parent.append(int(rng.integers(0, i)) if rng.random() < branching else i - 1)
    order = _depth_first_order(parent) if depth_first else list(range(n_bodies))
    new_index = {old: new for new, old in enumerate(order)}
    parent = [-1 if parent[old] < 0 else new_index[parent[old]] for old in order]
    joints, placements, inertias = [], [], []
    for _ in range(n_bodies):
        kind = kinds[int(rng.integers(len(kinds)))]
        axis = rng.normal(size=3) if kind in ("revolute", "prismatic", "helical") else None
        pitch = rng.uniform(-0.3, 0.3) if kind == "helical" else 0
        joints.append(Joint(kind, axis, pitch))
        placements.append(homogeneous(random_rotation(rng), rng.normal(scale=0.5, size=3)))
        inertias.append(random_inertia(rng))
    return Model(tuple(parent), tuple(joints), np.array(placements), np.array(inertias), gravity)


def _depth_first_order(parent):
    children = [[] for _ in parent]
    roots = []
    for i, p in enumerate(parent):
        (roots if p < 0 else children[p]).append(i)
    order, stack = [], roots[::-1]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(children[i][::-1])
    return order
