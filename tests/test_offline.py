"""tools/offline.sh, which runs the notebooks, really cuts the network and keeps loopback."""

import subprocess
import sys
from pathlib import Path

OFFLINE = Path(__file__).resolve().parents[1] / "tools" / "offline.sh"

LOOPBACK = """
import socket
server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(1)
socket.create_connection(server.getsockname(), timeout=5)
print("loopback works")
"""


def interfaces(*prefix):
    listing = subprocess.run([*prefix, "ip", "-o", "link"], capture_output=True, text=True, check=True).stdout
    return {line.split(": ")[1].split("@")[0] for line in listing.splitlines()}


def test_offline_commands_see_only_loopback_and_can_use_it():
    assert interfaces(str(OFFLINE)) == {"lo"}
    result = subprocess.run([str(OFFLINE), sys.executable, "-c", LOOPBACK], capture_output=True, text=True,
                            timeout=60)
    assert result.stdout.strip() == "loopback works", result.stderr


def test_outside_there_is_more_than_loopback_to_cut():
    assert interfaces() - {"lo"}, "this machine has no network interface, so the check above proves nothing"
