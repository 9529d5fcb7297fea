"""tools/assignments.py without nbgrader: what a student's check cell keeps, what the hidden tests change."""

import ast
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import assignments  # noqa: E402

from dynlib.course.exercises import ExerciseFeedback, Fingerprint, Fingerprints, check_answer  # noqa: E402

CHECK = '''\
answered(tip=tip)
reference = 2 * np.pi * radius
check_answer(tip, reference + 1, "the tip", hint="think")
for k, case in enumerate(cases):
    hardest = int(np.argmax(case))
    check_answer(picks[k], hardest, f"case {k}")
mine(cases)
log.append(1)
'''


def test_a_student_check_keeps_the_checks_and_drops_what_only_computed_the_answer():
    fingerprints = [Fingerprint.of(3.0), Fingerprints(Fingerprint.of(0).code, Fingerprint.of(2).code)]
    text = assignments.student_check(CHECK, fingerprints)
    ast.parse(text)
    assert "2 * np.pi" not in text and "np.argmax" not in text and "reference" not in text
    assert "answered(tip=tip)" in text and "mine(cases)" in text and "log.append(1)" in text
    assert "_expected_1 = Fingerprints(" in text and "check_answer(picks[k], _expected_1.next()" in text
    assert text.startswith("from dynlib.course.exercises import Fingerprint, Fingerprints\n")


def test_fingerprints_of_a_loop_are_handed_out_in_turn():
    expected = assignments.fingerprint([1, 3, 2])
    for value in (1, 3, 2):
        check_answer(value, expected.next(), "a pick")
    with pytest.raises(ExerciseFeedback, match="not right yet"):
        check_answer(2, expected.next(), "a pick")
    assert isinstance(assignments.fingerprint([0.5]), Fingerprint)


def test_hidden_tests_move_every_seed():
    source = "rng = np.random.default_rng(7)\ntree = dl.random_tree(5, 3, branching=0.5)\n"
    moved = assignments.reseeded(source, 1000)
    assert "default_rng((7) + 1000)" in moved and "random_tree(5, (3) + 1000, branching=0.5)" in moved


def test_an_answer_cell_keeps_the_signature_and_docstring_and_marks_the_solution():
    import nbformat

    page = nbformat.read(Path(__file__).resolve().parents[1] / "exercises" / "05_inverse_dynamics_exercises.ipynb",
                         as_version=4)
    exercise = assignments.coursework.exercises(page)[0]
    text = assignments.answer_source(page, exercise)
    head, solution = text.split("### BEGIN SOLUTION")
    assert head.lstrip().startswith("def inward_pass(model, s, f_body):") and '"""' in head
    assert "### END SOLUTION" in solution and "raise NotImplementedError" not in text
