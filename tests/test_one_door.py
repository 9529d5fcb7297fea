"""One door: every algorithm checks ``q`` exactly once and each quaternion exactly once per call.

The checks are counted by wrapping the functions that make them, wherever dynlib's modules
imported them; a model with three quaternion joints (two spherical, one free) shows the counts.
Kernels, compiled or run as Python, check nothing.
"""

import sys
from collections import Counter

import numpy as np
import pytest

import dynlib as dl
import dynlib.multibody.model as model_module
import dynlib.spatial.rotations as rotations_module


@pytest.fixture
def counted(monkeypatch):
    """Count calls of the configuration check and of the unit-quaternion check."""
    counts = Counter()
    configuration, quaternion = model_module._checked_configuration, rotations_module.check_unit_quaternion

    def count_configuration(*args, **kwargs):
        counts["q"] += 1
        return configuration(*args, **kwargs)

    def count_quaternion(*args, **kwargs):
        counts["quaternion"] += 1
        return quaternion(*args, **kwargs)

    monkeypatch.setattr(model_module, "_checked_configuration", count_configuration)
    for name, module in list(sys.modules.items()):
        if name.startswith("dynlib") and getattr(module, "check_unit_quaternion", None) is quaternion:
            monkeypatch.setattr(module, "check_unit_quaternion", count_quaternion)
    return counts


def chain():
    rng = np.random.default_rng(3)
    joints = (dl.spherical(), dl.revolute([0, 0, 1.0]), dl.free(), dl.prismatic([1.0, 0, 0]), dl.spherical())
    placements = np.array([dl.homogeneous(np.eye(3), [0.3, 0.1 * i, 0.0]) for i in range(5)])
    model = dl.Model(tuple(range(-1, 4)), joints, placements, np.array([dl.random_inertia(rng) for _ in range(5)]))
    q, qd, tau = dl.random_configuration(model, rng), dl.random_velocity(model, rng), dl.random_velocity(model, rng)
    return model, q, qd, tau


MODEL, Q, QD, TAU = chain()
CONTACT = dl.line_coordinates([0.0, 0.0, 0.0], [0.0, 1.0, 0.0])
CALLS = {
    "forward_kinematics": lambda: dl.forward_kinematics(MODEL, Q, QD, TAU),
    "rnea": lambda: dl.rnea(MODEL, Q, QD, TAU),
    "bias_forces": lambda: dl.bias_forces(MODEL, Q, QD),
    "joint_wrenches": lambda: dl.joint_wrenches(MODEL, Q, QD, TAU),
    "crba": lambda: dl.crba(MODEL, Q),
    "forward_dynamics_crba": lambda: dl.forward_dynamics_crba(MODEL, Q, QD, TAU),
    "aba": lambda: dl.aba(MODEL, Q, QD, TAU),
    "articulated_bodies": lambda: dl.articulated_bodies(MODEL, Q, QD, TAU),
    "hybrid_dynamics": lambda: dl.hybrid_dynamics(MODEL, Q, QD, TAU, TAU, [True, False, False, True, False]),
    "articulated_mobility": lambda: dl.articulated_mobility(MODEL, Q, QD, TAU),
    "split_chain_dynamics": lambda: dl.split_chain_dynamics(MODEL, Q, QD, TAU, 2),
    "impulse_propagation": lambda: dl.impulse_propagation(MODEL, Q, QD, CONTACT, 0.5),
    "contact_impulse": lambda: dl.contact_impulse(MODEL, Q, QD, CONTACT, 0.5),
    "rnea_body_frame": lambda: dl.rnea_body_frame(MODEL, Q, QD, TAU),
    "aba_body_frame": lambda: dl.aba_body_frame(MODEL, Q, QD, TAU),
    "body_jacobian": lambda: dl.body_jacobian(MODEL, Q, 4),
    "point_jacobian": lambda: dl.point_jacobian(MODEL, Q, 4, [0.1, 0.0, 0.0]),
    "system_energy": lambda: dl.system_energy(MODEL, Q, QD),
    "system_momentum": lambda: dl.system_momentum(MODEL, Q, QD),
    "integrate": lambda: dl.integrate(MODEL, Q, QD, 0.01),
    "stacked_forward_dynamics": lambda: dl.stacked_forward_dynamics(MODEL, Q, QD, TAU),
    "rnea_derivatives": lambda: dl.rnea_derivatives(MODEL, Q, QD, TAU),
    "aba_derivatives": lambda: dl.aba_derivatives(MODEL, Q, QD, TAU),
    "joint_torque_regressor": lambda: dl.joint_torque_regressor(MODEL, Q, QD, TAU),
    "energy_regressor": lambda: dl.energy_regressor(MODEL, Q, QD),
}


@pytest.mark.parametrize("name", CALLS)
def test_an_algorithm_checks_q_once_and_each_quaternion_once(counted, name):
    CALLS[name]()
    assert counted == {"q": 1, "quaternion": 3}, f"{name}: {dict(counted)}"


def test_a_batch_is_checked_once_too(counted):
    dl.aba(MODEL, np.stack([Q, Q, Q]), QD, TAU)
    assert counted == {"q": 1, "quaternion": 3}
