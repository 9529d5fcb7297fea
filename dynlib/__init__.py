"""dynlib: articulated rigid-body dynamics in plain numpy, exact with sympy.

One convention throughout: 6-vectors are linear part first (``[v_O; w]``,
``[f; n_O]``) in world coordinates about the world origin; bodies are numbered
so that ``parent[i] < i``.  See the book's notation page.
"""

from .articulated import ArticulatedBodies, aba, articulated_bodies, hybrid_dynamics, velocity_products
from .body_frame import BodyFrameForwardDynamics, BodyFrameInverseDynamics, aba_body_frame, rnea_body_frame
from .builders import (
    alexiou_two_link,
    double_pendulum,
    planar_chain,
    random_tree,
    serial_chain,
)
from .checks import exactly_zero, relative_close
from .constrained_dynamics import (
    StackedDynamics,
    constrained_forward_dynamics,
    constrained_inverse_dynamics,
    stacked_forward_dynamics,
    stacked_system,
)
from .constraints import (
    PLANAR_POINT_AXES,
    LoopConstraint,
    constraint_bias,
    constraint_jacobian,
    constraint_residual,
    dependent_motion,
    project_configuration,
    project_velocity,
)
from .conventions import (
    angular_first_permutation,
    from_angular_first,
    from_planar,
    planar_components,
    planar_matrix,
    to_angular_first,
)
from .decompositions import (
    Decomposition,
    basic_decomposition,
    dual_decomposition,
    force_components,
    motion_components,
    projected_acceleration,
    projected_force,
    reaction_subspace,
    subspace_decomposition,
)
from .energy import (
    gravity_acceleration,
    gravity_wrenches,
    system_centre_of_mass,
    system_energy,
    system_kinetic_energy,
    system_momentum,
    system_potential_energy,
    world_inertias,
)
from .impulse import ImpulseResponse, contact_impulse, contact_line, impulse_propagation
from .inertia import (
    angular_momentum,
    check_rotational_inertia,
    inertia_parameters,
    kinetic_energy,
    momentum,
    planar_body_inertia,
    planar_link_inertia,
    random_inertia,
    spatial_inertia,
    transform_inertia,
)
from .inverse_dynamics import bias_forces, check_external_forces, joint_wrenches, rnea, rnea_vectors
from .joints import JOINT_KINDS, Joint, fixed, free, helical, prismatic, revolute, spherical, translational
from .kinematics import (
    Kinematics,
    body_jacobian,
    centres_of_mass,
    direction_marker_motion,
    forward_kinematics,
    marker_motion,
    point_jacobian,
)
from .liegroup import (
    Ad,
    Ad_dual,
    ad,
    ad_dual,
    exp_se3,
    exp_so3,
    hat,
    homogeneous,
    homogeneous_inverse,
    log_se3,
    log_so3,
    rotation_translation,
    vee,
)
from .listing import show_source
from .mass_matrix import composite_inertias, crba, forward_dynamics_crba
from .mechanisms import Mechanism, body_outlines, four_bar, piston_crank, prescribed_motion
from .mobility import (
    Mobility,
    MobilityEllipse,
    MobilitySpectrum,
    MobilityStep,
    articulated_mobility,
    mobility_ellipse,
    mobility_spectrum,
    mobility_steps,
    point_mobility,
    split_chain_dynamics,
)
from .model import (
    Model,
    check_configuration,
    check_velocity,
    difference,
    integrate,
    neutral_configuration,
    random_configuration,
    random_velocity,
)
from .projective import (
    cartesian_point,
    homogeneous_line,
    homogeneous_point,
    incidence,
    inertia_point_line_map,
    line_of_wrench,
    line_point_direction,
    percussion_axis,
    point_of_twist,
    twist_of_point,
    wrench_of_line,
)
from .rotations import (
    check_unit_quaternion,
    normalize_quaternion,
    quaternion_conjugate,
    quaternion_from_rotation,
    quaternion_from_rotation_vector,
    quaternion_multiply,
    quaternion_rate_matrix,
    random_quaternion,
    random_rotation,
    rotation_about_axis,
    rotation_from_quaternion,
    rotation_from_rpy,
    unit_axis,
)
from .screws import (
    Screw,
    cylindroid,
    line_coordinates,
    line_through_points,
    principal_screws,
    reciprocal_product,
    screw_of_twist,
    screw_of_wrench,
    twist_from_screw,
    wrench_from_screw,
)
from .simulation import (
    Impact,
    PlaneContact,
    Trajectory,
    simulate,
    step_explicit_euler,
    step_rk4,
    step_semi_implicit_euler,
)
from .spatial import (
    crf,
    crm,
    cross3,
    cross_force,
    cross_motion,
    force_transform,
    inverse_transform,
    motion_transform,
    skew,
    unskew,
)
from .urdf import kuka_iiwa14, load_urdf

__version__ = "0.1.0"
