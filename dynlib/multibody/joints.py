"""Joints: one small class, one dispatch on ``kind``.

A joint connects a parent body to a child body.  Its *joint frame* is fixed in
the parent (placed by the model); its motion moves the child frame relative
to the joint frame by the pose ``transform(q_j) = (R_J, p_J)``.  Every joint's
motion subspace ``S`` is **constant in the child frame** (linear part first),
so the child's twist relative to the parent, in child coordinates, is
``S @ qd_j`` and, in world coordinates, its derivative is ``v_child x s``.

=============  ====  ====  ===========================================================
kind           nq    nv    configuration ``q_j`` / velocity ``qd_j``
=============  ====  ====  ===========================================================
revolute       1     1     angle about ``axis`` / its rate
prismatic      1     1     displacement along ``axis`` / its rate
helical        1     1     angle about ``axis``, translation ``pitch * angle`` / angle rate
spherical      4     3     unit quaternion (x, y, z, w) of the child in the joint frame /
                           angular velocity of child relative to parent, **child frame**
translational  3     3     displacement in the joint frame / its rate (same axes as child)
free           7     6     position (3) in the joint frame and quaternion (x, y, z, w) /
                           twist ``[v; w]`` of the child relative to the parent,
                           **child frame**, about the child origin
fixed          0     0     none
=============  ====  ====  ===========================================================

Chapter: *Rigid-body motion and joints*; Concurrent Dynamics (2017) joint types
JT = 1..4, eqs. 2a-2c, 3, 5-7; Kim (2012) §2.1 (multi-dof joint Jacobians).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.backend import as_array, check_finite, check_scalar, is_symbolic, matvec
from ..core.compile import cos, kernel, sin
from ..spatial.liegroup import exp_se3, homogeneous, homogeneous_inverse, log_se3, log_so3
from ..spatial.rotations import (
    axis_angle_matrix,
    check_unit_quaternion,
    normalize_quaternion,
    quaternion_from_rotation_vector,
    quaternion_matrix,
    quaternion_multiply,
    random_quaternion,
    unit_axis,
)

__all__ = [
    "Joint",
    "JOINT_KINDS",
    "revolute",
    "prismatic",
    "helical",
    "spherical",
    "translational",
    "free",
    "fixed",
]

#: kind -> (nq, nv)
JOINT_KINDS = {
    "revolute": (1, 1),
    "prismatic": (1, 1),
    "helical": (1, 1),
    "spherical": (4, 3),
    "translational": (3, 3),
    "free": (7, 6),
    "fixed": (0, 0),
}
_AXIAL = ("revolute", "prismatic", "helical")

#: The number of each kind in ``ModelArrays.kind``, which the kernels branch on.
REVOLUTE, PRISMATIC, HELICAL, SPHERICAL, TRANSLATIONAL, FREE, FIXED = range(7)
KIND_CODES = dict(zip(JOINT_KINDS, range(7)))


@dataclass(frozen=True, eq=False)
class Joint:
    """A joint of a given ``kind`` (see the module table), with an axis and pitch if it has them.

    Parameters
    ----------
    kind : str
        One of ``JOINT_KINDS``.
    axis : array_like, shape (3,), optional
        Joint axis in the joint frame (revolute, prismatic, helical only);
        normalised, and a zero axis raises ValueError.
    pitch : float or sympy expression
        Translation per radian (helical only).

    Attributes
    ----------
    nq, nv : int
        Sizes of the joint's configuration and velocity.
    S : ndarray, shape (6, nv)
        Motion subspace in the child frame (constant).
    """

    kind: str
    axis: np.ndarray | None = None
    pitch: object = 0

    def __post_init__(self):
        if not isinstance(self.kind, str) or self.kind not in JOINT_KINDS:
            raise ValueError(f"joint kind must be one of {sorted(JOINT_KINDS)}, got {self.kind!r}")
        if self.kind in _AXIAL:
            if self.axis is None:
                raise ValueError(f"a {self.kind} joint needs an axis (3-vector)")
            axis = unit_axis(self.axis, f"{self.kind} joint axis")
            axis.flags.writeable = False
            object.__setattr__(self, "axis", axis)
        elif self.axis is not None:
            raise ValueError(f"a {self.kind} joint takes no axis, got {self.axis}")
        if self.kind != "helical" and not (np.ndim(self.pitch) == 0 and self.pitch == 0):
            raise ValueError(f"only helical joints have a pitch, got pitch={self.pitch}")
        if self.kind == "helical":
            check_scalar(self.pitch, "helical pitch")
        S = self._subspace()
        S.flags.writeable = False
        object.__setattr__(self, "S", S)

    @property
    def nq(self):
        return JOINT_KINDS[self.kind][0]

    @property
    def nv(self):
        return JOINT_KINDS[self.kind][1]

    def __repr__(self):
        extra = ""
        if self.axis is not None:
            extra = f", axis={[round(float(a), 6) if not is_symbolic(a) else a for a in self.axis]}"
        if self.kind == "helical":
            extra += f", pitch={self.pitch}"
        return f"Joint({self.kind!r}{extra})"

    def _subspace(self):
        # axis-free subspaces are integer 0/1 matrices, so they stay exact next to sympy symbols
        dtype = object if is_symbolic(self.axis, self.pitch) else float if self.kind in _AXIAL else int
        S = np.zeros((6, self.nv), dtype=dtype)
        k, a = self.kind, self.axis
        if k == "revolute":
            S[3:, 0] = a
        elif k == "prismatic":
            S[:3, 0] = a
        elif k == "helical":
            S[:3, 0] = self.pitch * a
            S[3:, 0] = a
        elif k == "spherical":
            S[3:, :] = np.eye(3)
        elif k == "translational":
            S[:3, :] = np.eye(3)
        elif k == "free":
            S[:, :] = np.eye(6)
        return S

    # -- configuration -------------------------------------------------------------

    def check_configuration(self, qj, name="q_j", batch=False):
        """Return ``qj`` as an array after checking its shape, finiteness and quaternion norm.

        With ``batch``, ``qj`` may carry leading batch axes, ``(..., nq)``.
        """
        qj = as_array(qj, name)
        if qj.shape != (self.nq,) and not (batch and qj.ndim >= 1 and qj.shape[-1] == self.nq):
            want = f"({self.nq},)" + (f" or (..., {self.nq})" if batch else "")
            raise ValueError(f"{name} of a {self.kind} joint must have shape {want}, got {qj.shape}")
        check_finite(qj, name)
        if self.kind == "spherical":
            check_unit_quaternion(qj, f"{name} (spherical joint quaternion)")
        elif self.kind == "free":
            check_unit_quaternion(qj[..., 3:], f"{name}[3:] (free joint quaternion)")
        return qj

    def transform(self, qj):
        """Pose ``(R_J, p_J)`` of the child frame in the joint frame.

        Parameters
        ----------
        qj : array_like, shape (nq,)

        Returns
        -------
        R : ndarray, shape (3, 3)
        p : ndarray, shape (3,)

        References
        ----------
        Concurrent Dynamics (2017) eqs. 2a-2c and 3.
        """
        return self.pose(self.check_configuration(qj))

    def pose(self, qj):
        """:meth:`transform` without the input checks (for algorithms that validated ``q``).

        ``qj`` may carry leading batch axes, ``(..., nq)``: the pose then has them too.
        """
        axis = self.axis if self.axis is not None else np.zeros(3, dtype=int)
        if qj.ndim == 1:
            return joint_pose(KIND_CODES[self.kind], axis, self.pitch, qj)
        poses = [joint_pose(KIND_CODES[self.kind], axis, self.pitch, x) for x in qj.reshape(-1, self.nq)]
        return (np.array([R for R, _ in poses]).reshape(qj.shape[:-1] + (3, 3)),
                np.array([p for _, p in poses]).reshape(qj.shape[:-1] + (3,)))

    def neutral(self):
        """The zero configuration (identity quaternions), shape (nq,)."""
        q = np.zeros(self.nq)
        if self.kind == "spherical":
            q[3] = 1.0
        elif self.kind == "free":
            q[6] = 1.0
        return q

    def random_configuration(self, rng, scale=1.0):
        """A random configuration: angles in [-pi, pi), displacements ~ N(0, scale)."""
        k = self.kind
        if k == "revolute":
            return rng.uniform(-np.pi, np.pi, size=1)
        if k in ("prismatic", "translational"):
            return rng.normal(scale=scale, size=self.nq)
        if k == "helical":
            return rng.uniform(-np.pi, np.pi, size=1)
        if k == "spherical":
            return random_quaternion(rng)
        if k == "free":
            return np.concatenate([rng.normal(scale=scale, size=3), random_quaternion(rng)])
        return np.zeros(0)

    def integrate(self, qj, vj, dt=1.0):
        """Configuration reached from ``qj`` moving with constant velocity ``vj`` for ``dt``.

        Quaternions are composed on the right with the body-frame rotation and
        renormalised, so they stay unit.

        Parameters
        ----------
        qj : array_like, shape (nq,) or (..., nq)
        vj : array_like, shape (nv,) or (..., nv)
            Leading batch axes of ``qj`` and ``vj`` broadcast.
        dt : float

        Returns
        -------
        ndarray, shape (nq,) or (..., nq)
        """
        qj = self.check_configuration(qj, batch=True)
        vj = as_array(vj, "v_j")
        if vj.ndim == 0 or vj.shape[-1] != self.nv:
            raise ValueError(
                f"v_j of a {self.kind} joint must have shape ({self.nv},) "
                f"or (..., {self.nv}), got {vj.shape}"
            )
        check_finite(vj, "v_j")
        return self.advance(qj, vj * check_scalar(dt, "dt"))

    def advance(self, qj, step):
        """:meth:`integrate` without the input checks: the configuration after the motion ``step = vj dt``."""
        if self.kind == "spherical":
            return normalize_quaternion(quaternion_multiply(qj, quaternion_from_rotation_vector(step)))
        if self.kind == "free":  # the body-frame screw motion exp(step), then the pose composed with it
            R, p = self.pose(qj)
            turned = quaternion_multiply(qj[..., 3:], quaternion_from_rotation_vector(step[..., 3:]))
            moved = p + matvec(R, exp_se3(step)[..., :3, 3])
            return np.concatenate([moved, normalize_quaternion(turned)], axis=-1)
        return qj + step

    def difference(self, q0, q1):
        """Velocity ``v`` with ``integrate(q0, v, 1) == q1`` (the shortest one for rotations).

        Parameters
        ----------
        q0, q1 : array_like, shape (nq,)

        Returns
        -------
        ndarray, shape (nv,)
        """
        return self.displacement(self.check_configuration(q0, "q0"), self.check_configuration(q1, "q1"))

    def displacement(self, q0, q1):
        """:meth:`difference` without the input checks."""
        if self.kind == "spherical":
            R0, _ = self.pose(q0)
            R1, _ = self.pose(q1)
            return log_so3(R0.T @ R1)
        if self.kind == "free":
            T0, T1 = homogeneous(*self.pose(q0)), homogeneous(*self.pose(q1))
            return log_se3(homogeneous_inverse(T0) @ T1)
        return q1 - q0


@kernel(inline=True)
def joint_pose(kind, axis, pitch, qj):
    """Pose ``(R_J, p_J)`` of one joint's child frame in its joint frame (a kernel: unchecked).

    Parameters
    ----------
    kind : int
        The joint's number in ``KIND_CODES``.
    axis : ndarray, shape (3,)
        Unit axis in the joint frame (zeros for joints without one).
    pitch : float or sympy expression
        Helical pitch (zero for other joints).
    qj : ndarray, shape (nq_j,)
        The joint's configuration.

    Returns
    -------
    R_J : ndarray, shape (3, 3)
    p_J : ndarray, shape (3,)

    References
    ----------
    Chapter *Rigid-body motion and joints*; Concurrent Dynamics (2017) eqs. 2a-2c and 3 (Rodrigues'
    formula for revolute and helical joints, the quaternion's rotation for spherical and free ones).
    """
    if kind == REVOLUTE or kind == HELICAL:
        return np.array(axis_angle_matrix(axis, cos(qj[0]), sin(qj[0]))), axis * (pitch * qj[0])
    if kind == SPHERICAL or kind == FREE:
        k = qj.shape[0] - 4                                     # the quaternion is last
        R = np.array(quaternion_matrix(qj[k], qj[k + 1], qj[k + 2], qj[k + 3]))
        return R, qj[:3].copy() if kind == FREE else np.zeros(3, dtype=qj.dtype)
    R = np.zeros((3, 3), dtype=qj.dtype)
    for k in range(3):
        R[k, k] = 1
    if kind == PRISMATIC:
        return R, axis * qj[0]
    if kind == TRANSLATIONAL:
        return R, qj[:3].copy()
    return R, np.zeros(3, dtype=qj.dtype)                     # fixed


@kernel(inline=True)
def compose(R_a, p_a, R_b, p_b):
    """The pose ``(R_a R_b, p_a + R_a p_b)``: frame b placed in frame a, placed in the world.

    Parameters
    ----------
    R_a, R_b : ndarray, shape (3, 3)
    p_a, p_b : ndarray, shape (3,)

    Returns
    -------
    R : ndarray, shape (3, 3)
    p : ndarray, shape (3,)
    """
    R, p = np.zeros((3, 3), dtype=R_b.dtype), np.zeros(3, dtype=R_b.dtype)
    for r in range(3):
        p[r] = p_a[r]
        for k in range(3):
            p[r] += R_a[r, k] * p_b[k]
            for c in range(3):
                R[r, c] += R_a[r, k] * R_b[k, c]
    return R, p


def revolute(axis=(0.0, 0.0, 1.0)):
    """A revolute joint about ``axis`` (joint-frame coordinates).

    Parameters
    ----------
    axis : array_like, shape (3,)
        In the joint frame; normalised, a zero axis raises ValueError.

    Returns
    -------
    Joint
    """
    return Joint("revolute", axis)


def prismatic(axis=(1.0, 0.0, 0.0)):
    """A prismatic (sliding) joint along ``axis``.

    Parameters
    ----------
    axis : array_like, shape (3,)
        In the joint frame; normalised, a zero axis raises ValueError.

    Returns
    -------
    Joint
    """
    return Joint("prismatic", axis)


def helical(axis=(0.0, 0.0, 1.0), pitch=0.1):
    """A helical (screw) joint: rotation ``theta`` about ``axis`` with translation ``pitch * theta``.

    Parameters
    ----------
    axis : array_like, shape (3,)
    pitch : float or sympy expression
        Translation per radian.

    Returns
    -------
    Joint
    """
    return Joint("helical", axis, pitch)


def spherical():
    """A spherical (ball) joint with a scalar-last unit quaternion and child-frame angular velocity.

    Returns
    -------
    Joint
    """
    return Joint("spherical")


def translational():
    """A 3-dof translational joint (Concurrent Dynamics JT = 2).

    Returns
    -------
    Joint
    """
    return Joint("translational")


def free():
    """A 6-dof free-floating joint: position + quaternion, child-frame twist.

    Returns
    -------
    Joint
    """
    return Joint("free")


def fixed():
    """A rigid weld (no degrees of freedom).

    Returns
    -------
    Joint
    """
    return Joint("fixed")
