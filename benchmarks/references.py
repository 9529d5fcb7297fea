"""Reference libraries for the benchmark: a dynlib Model as MuJoCo MJCF and as Modern Robotics lists.

Both converters take a serial chain of revolute joints (what the benchmark times) and give
the other library the same bodies, joints, inertias and gravity, so that the three libraries
compute the same ``tau``, ``H`` and ``qdd`` for the same ``(q, qd, qdd)``.  Pinocchio's
converter is ``tests/pinocchio_bridge.py``.

- **MuJoCo** (``mujoco``): nested ``<body pos quat>`` = ``placements[i]`` (quaternion scalar
  first), a ``<joint type="hinge">`` at the body origin along ``joints[i].axis`` (body frame),
  an ``<inertial pos mass fullinertia>`` from :func:`dynlib.inertia_parameters`, no geoms, zero
  damping, armature, friction loss and no limits, ``<option gravity>`` = ``model.gravity``.
  MuJoCo's ``qpos`` of a hinge is its angle from the pose written in the XML, i.e. dynlib's ``q``.
- **Modern Robotics** (``modern_robotics``, Lynch & Park 2017, §8.3): angular part first.
  Link frame ``{i}`` sits at body ``i``'s centre of mass with body ``i``'s axes at ``q = 0``
  (the home position); ``Mlist[i]`` is ``{i}`` seen from ``{i-1}`` (``{0}`` is the world),
  plus an identity end-effector frame; ``Glist[i] = diag(I_c, m 1)``; the columns of ``Slist``
  are the space-frame screw axes ``[w; -w x p]`` of the joints at home.

The MuJoCo calls that the benchmark uses (the cheapest ones that compute the full quantity)
are :func:`mujoco_inverse_dynamics`, :func:`mujoco_mass_matrix` and
:func:`mujoco_forward_dynamics` below.
"""

from __future__ import annotations

import numpy as np

import dynlib as dl

__all__ = [
    "check_revolute_chain",
    "to_mjcf",
    "to_mujoco",
    "MuJoCoChain",
    "to_modern_robotics",
    "ModernRoboticsChain",
]


def check_revolute_chain(model):
    """Raise ``ValueError`` unless ``model`` is a numeric serial chain of revolute joints."""
    if model.symbolic:
        raise ValueError("the reference libraries need a numeric model, got a symbolic one")
    if not model.is_chain():
        raise ValueError(f"the converters take a serial chain (parent[i] == i - 1), got parent={model.parent}")
    kinds = {j.kind for j in model.joints}
    if kinds != {"revolute"}:
        raise ValueError(f"the converters take revolute joints only, got {sorted(kinds)}")


def _numbers(values):
    """Space-separated shortest round-trip decimal forms: the XML carries every bit."""
    return " ".join(repr(float(x)) for x in np.ravel(values))


def _quaternion_wxyz(R):
    """Unit quaternion (scalar first, MuJoCo's order) of a rotation matrix."""
    import mujoco

    quat = np.empty(4)
    mujoco.mju_mat2Quat(quat, np.ascontiguousarray(R, dtype=float).ravel())
    return quat


# --------------------------------------------------------------------------------------- MuJoCo


def to_mjcf(model, name="dynlib_chain"):
    """MJCF text of a dynlib revolute chain (see the module docstring for the mapping).

    Parameters
    ----------
    model : dynlib.Model
        A serial chain of revolute joints.
    name : str

    Returns
    -------
    str
        ``mujoco.MjModel.from_xml_string(to_mjcf(model))`` loads it; joint ``i`` is ``qpos[i]``.
    """
    check_revolute_chain(model)
    lines = [
        f'<mujoco model="{name}">',
        '  <compiler angle="radian" autolimits="true" inertiafromgeom="false" boundmass="0" boundinertia="0"/>',
        f'  <option gravity="{_numbers(model.gravity)}"/>',
        '  <default><joint damping="0" armature="0" frictionloss="0" stiffness="0" limited="false"/></default>',
        "  <worldbody>",
    ]
    for i in range(model.n_bodies):
        T = model.placements[i]
        m, c, I_c = dl.inertia_parameters(model.inertias[i])
        full = [I_c[0, 0], I_c[1, 1], I_c[2, 2], I_c[0, 1], I_c[0, 2], I_c[1, 2]]
        pad = "  " * (i + 2)
        lines += [
            f'{pad}<body name="b{i}" pos="{_numbers(T[:3, 3])}" quat="{_numbers(_quaternion_wxyz(T[:3, :3]))}">',
            f'{pad}  <joint name="j{i}" type="hinge" pos="0 0 0" axis="{_numbers(model.joints[i].axis)}"/>',
            f'{pad}  <inertial pos="{_numbers(c)}" mass="{float(m)!r}" fullinertia="{_numbers(full)}"/>',
        ]
    for i in reversed(range(model.n_bodies)):
        lines.append("  " * (i + 2) + "</body>")
    lines += ["  </worldbody>", "</mujoco>"]
    return "\n".join(lines) + "\n"


def to_mujoco(model):
    """A ``mujoco.MjModel`` of a dynlib revolute chain (compiled from :func:`to_mjcf`)."""
    import mujoco

    return mujoco.MjModel.from_xml_string(to_mjcf(model))


class MuJoCoChain:
    """A compiled MuJoCo model with its data and the three dynamics calls the benchmark times.

    Parameters
    ----------
    model : dynlib.Model
        A serial chain of revolute joints.
    """

    def __init__(self, model):
        import mujoco

        self.mj = mujoco
        self.m = to_mujoco(model)
        self.d = mujoco.MjData(self.m)
        self.nv = self.m.nv
        self.tau = np.zeros(self.nv)
        self.H = np.zeros((self.nv, self.nv))

    def _set(self, q, qd=None, qdd=None):
        self.d.qpos[:] = q
        if qd is not None:
            self.d.qvel[:] = qd
        if qdd is not None:
            self.d.qacc[:] = qdd

    def inverse_dynamics(self, q, qd, qdd):
        """``tau = H qdd + C(q, qd)`` (gravity included): ``mj_kinematics``, ``mj_comPos``,
        ``mj_comVel``, then ``mj_rne(flg_acc=1)``, the recursive Newton-Euler pass."""
        mj, m, d = self.mj, self.m, self.d
        self._set(q, qd, qdd)
        mj.mj_kinematics(m, d)
        mj.mj_comPos(m, d)
        mj.mj_comVel(m, d)
        mj.mj_rne(m, d, 1, self.tau)
        return self.tau

    def inverse_dynamics_full(self, q, qd, qdd):
        """``tau`` from ``mj_inverse`` (the whole inverse pipeline; ``qfrc_inverse``)."""
        self._set(q, qd, qdd)
        self.mj.mj_inverse(self.m, self.d)
        return self.d.qfrc_inverse

    def mass_matrix(self, q):
        """Dense ``H(q)``: ``mj_kinematics``, ``mj_comPos``, ``mj_crb`` (composite rigid body),
        then ``mj_fullM`` to expand MuJoCo's sparse storage."""
        mj, m, d = self.mj, self.m, self.d
        self._set(q)
        mj.mj_kinematics(m, d)
        mj.mj_comPos(m, d)
        mj.mj_crb(m, d)
        mj.mj_fullM(m, d, self.H)
        return self.H

    def forward_dynamics(self, q, qd, tau):
        """``qdd`` from ``mj_forward`` with ``qfrc_applied = tau`` (``qacc``; no contacts or
        constraints exist, so this is ``H^-1 (tau - C)`` by MuJoCo's sparse LDL^T of ``H``)."""
        self._set(q, qd)
        self.d.qfrc_applied[:] = tau
        self.mj.mj_forward(self.m, self.d)
        return self.d.qacc


# ------------------------------------------------------------------------------ Modern Robotics


def to_modern_robotics(model):
    """Mlist, Glist, Slist of a dynlib revolute chain, in Modern Robotics' conventions.

    Parameters
    ----------
    model : dynlib.Model
        A serial chain of revolute joints.

    Returns
    -------
    Mlist : ndarray, shape (n + 1, 4, 4)
        ``M_{i-1, i}``: link frame ``{i}`` (at the centre of mass) in frame ``{i-1}`` at home;
        the last one is an identity end-effector frame.
    Glist : ndarray, shape (n, 6, 6)
        ``diag(I_c, m 1)`` in link frame ``{i}`` (angular first).
    Slist : ndarray, shape (6, n)
        Space-frame screw axes ``[w; v]`` at home.
    """
    check_revolute_chain(model)
    n = model.n_bodies
    T_body = np.eye(4)  # body frame in the world at q = 0
    T_prev = np.eye(4)  # link frame {i-1} in the world
    Mlist, Glist, Slist = [], [], np.zeros((6, n))
    for i in range(n):
        T_body = T_body @ model.placements[i]
        m, c, I_c = dl.inertia_parameters(model.inertias[i])
        T_link = T_body @ dl.homogeneous(np.eye(3), c)
        Mlist.append(dl.homogeneous_inverse(T_prev) @ T_link)
        G = np.zeros((6, 6))
        G[:3, :3], G[3:, 3:] = I_c, m * np.eye(3)
        Glist.append(G)
        w = T_body[:3, :3] @ np.asarray(model.joints[i].axis, float)
        Slist[:3, i], Slist[3:, i] = w, -np.cross(w, T_body[:3, 3])
        T_prev = T_link
    Mlist.append(np.eye(4))
    return np.array(Mlist), np.array(Glist), Slist


class ModernRoboticsChain:
    """A dynlib revolute chain in Modern Robotics' form, with its three dynamics calls.

    ``InverseDynamics``, ``MassMatrix`` (n calls of inverse dynamics) and ``ForwardDynamics``
    (mass matrix, two inverse dynamics and a solve), with ``Ftip = 0``.
    """

    def __init__(self, model):
        import modern_robotics as mr

        self.mr = mr
        self.Mlist, self.Glist, self.Slist = to_modern_robotics(model)
        self.g = np.array(model.gravity, float)
        self.Ftip = np.zeros(6)

    def inverse_dynamics(self, q, qd, qdd):
        return self.mr.InverseDynamics(q, qd, qdd, self.g, self.Ftip, self.Mlist, self.Glist, self.Slist)

    def mass_matrix(self, q):
        return self.mr.MassMatrix(q, self.Mlist, self.Glist, self.Slist)

    def forward_dynamics(self, q, qd, tau):
        return self.mr.ForwardDynamics(q, qd, tau, self.g, self.Ftip, self.Mlist, self.Glist, self.Slist)
