"""The publishing workflow is valid GitHub Actions (the schema check of ``make lint``), which catches a mistake."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"
CHECK = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))


def check(path):
    return subprocess.run([CHECK, "--builtin-schema", "vendor.github-workflows", str(path)], capture_output=True,
                          text=True, timeout=120)


def test_the_book_workflow_builds_on_push_and_deploys_to_pages():
    text = WORKFLOW.read_text()
    assert "make book" in text and "actions/deploy-pages" in text and "actions/upload-pages-artifact" in text
    assert "pages: write" in text and "id-token: write" in text


def test_the_workflow_passes_the_schema_and_a_misspelt_key_does_not(tmp_path):
    assert CHECK is not None, "check-jsonschema is missing: pip install -r requirements-test.txt"
    assert check(WORKFLOW).returncode == 0
    broken = tmp_path / "book.yml"
    broken.write_text(WORKFLOW.read_text().replace("runs-on:", "runs_on:", 1))
    done = check(broken)
    assert done.returncode != 0 and "runs_on" in done.stdout + done.stderr
