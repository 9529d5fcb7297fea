"""The benchmark's reference models (benchmarks/references.py): MuJoCo and Modern Robotics built
from a dynlib chain give the same inverse dynamics, mass matrix and forward dynamics as dynlib,
on random revolute chains and on the KUKA iiwa 14.  Skipped when a package is missing."""

import pathlib
import sys

import numpy as np
import pytest

import dynlib as dl

from conftest import assert_close, random_state

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
import references  # noqa: E402
import run as bench  # noqa: E402

#: (n, seed) of random revolute chains, as the benchmark builds them
CHAINS = [(1, 0), (2, 1), (5, 2), (8, 3), (16, 4)]
MODELS = [f"chain-{n}-{seed}" for n, seed in CHAINS] + ["iiwa14"]


@pytest.fixture(params=MODELS)
def model(request):
    if request.param == "iiwa14":
        return dl.kuka_iiwa14()
    n, seed = (int(x) for x in request.param.split("-")[1:])
    return dl.random_tree(n, seed, kinds=["revolute"], branching=0.0, depth_first=True)


def expected(model, seed=7):
    """A state and dynlib's tau, H and qdd (forward dynamics of another torque)."""
    rng = np.random.default_rng(seed)
    q, qd, qdd = random_state(model, rng)
    tau = dl.random_velocity(model, rng, scale=10.0)
    return (q, qd, qdd, tau), (dl.rnea(model, q, qd, qdd), dl.crba(model, q), dl.aba(model, q, qd, tau))


def test_mujoco_agrees_with_dynlib(model):
    pytest.importorskip("mujoco")
    (q, qd, qdd, tau), (tau_id, H, qdd_fd) = expected(model)
    mj = references.MuJoCoChain(model)
    assert_close(mj.inverse_dynamics(q, qd, qdd), tau_id, rtol=1e-10)
    assert_close(mj.inverse_dynamics_full(q, qd, qdd), tau_id, rtol=1e-10)
    assert_close(mj.mass_matrix(q), H, rtol=1e-10)
    assert_close(mj.forward_dynamics(q, qd, tau), qdd_fd, rtol=1e-9)


def test_modern_robotics_agrees_with_dynlib(model):
    pytest.importorskip("modern_robotics")
    (q, qd, qdd, tau), (tau_id, H, qdd_fd) = expected(model)
    mr = references.ModernRoboticsChain(model)
    assert_close(mr.inverse_dynamics(q, qd, qdd), tau_id, rtol=1e-10)
    assert_close(mr.mass_matrix(q), H, rtol=1e-10)
    assert_close(mr.forward_dynamics(q, qd, tau), qdd_fd, rtol=1e-9)


def test_mujoco_model_carries_masses_centres_and_gravity(model):
    mujoco = pytest.importorskip("mujoco")
    m = references.to_mujoco(model)
    assert m.nv == model.nv and m.nbody == model.n_bodies + 1  # + the world body
    assert_close(m.body_mass[1:], model.mass)
    assert_close(m.body_ipos[1:], model.com, scale=1.0)
    assert_close(m.opt.gravity, model.gravity)
    assert not np.any(m.dof_damping) and not np.any(m.dof_armature) and not np.any(m.dof_frictionloss)
    assert not np.any(m.jnt_limited)
    assert all(t == mujoco.mjtJoint.mjJNT_HINGE for t in m.jnt_type)


def test_modern_robotics_lists_follow_its_conventions(model):
    Mlist, Glist, Slist = references.to_modern_robotics(model)
    n = model.n_bodies
    assert Mlist.shape == (n + 1, 4, 4) and Glist.shape == (n, 6, 6) and Slist.shape == (6, n)
    assert np.array_equal(Mlist[-1], np.eye(4))  # end-effector frame = last link frame
    for i in range(n):
        assert_close(Glist[i][3:, 3:], model.mass[i] * np.eye(3))  # angular first, frame at the CoM
        assert not np.any(Glist[i][:3, 3:]) and not np.any(Glist[i][3:, :3])
        w, v = Slist[:3, i], Slist[3:, i]
        assert_close(np.linalg.norm(w), 1.0)  # a unit rotation axis ...
        assert_close(w @ v, 0.0, scale=1.0)  # ... with no pitch
    # at home, the last link frame sits at the last centre of mass
    kin = dl.forward_kinematics(model, dl.neutral_configuration(model))
    T = np.linalg.multi_dot(list(Mlist[:n])) if n > 1 else Mlist[0]
    assert_close(T[:3, 3], kin.p[-1] + kin.R[-1] @ model.com[-1], scale=1.0)


@pytest.mark.parametrize("convert", [references.to_mjcf, references.to_modern_robotics])
def test_converters_reject_what_they_cannot_convert(convert):
    with pytest.raises(ValueError, match="serial chain"):
        convert(dl.random_tree(4, 0, kinds=["revolute"], branching=1.0))
    with pytest.raises(ValueError, match="revolute joints only"):
        convert(dl.random_tree(3, 0, kinds=["prismatic"], branching=0.0))
    with pytest.raises(ValueError, match="numeric model"):
        convert(dl.alexiou_two_link())


def test_benchmark_stops_when_a_reference_disagrees():
    assert bench.check_close("same", [1.0, 2.0], [1.0, 2.0 + 1e-12]) < bench.RTOL
    with pytest.raises(bench.AgreementError, match="relative error"):
        bench.check_close("gravity sign flipped", [1.0, 2.0], [1.0, -2.0])


def test_benchmark_slope_fit():
    ns = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    slope, lo, hi = bench.fit_slope(ns, [3e-6 * n**2 for n in ns])
    assert (lo, hi) == (16, 256) and abs(slope - 2) < 1e-12
    assert np.isnan(bench.fit_slope([1, 2, 16], [1.0, 2.0, 3.0])[0])  # one point in range
