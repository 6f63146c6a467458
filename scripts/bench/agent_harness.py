"""Shared by the scripts that run PrintBridge against the mocks
(daemon_benchmark.py, apns_benchmark.py): starting a
mock, the inputs an agent is started with, and the environment that points
PrintBridge at the mock APNs."""
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MOCK_HA = os.path.join(ROOT, "Tests", "DaemonTests", "MockHA", "mock_ha.py")
MOCK_APNS = os.path.join(ROOT, "Tests", "APNsClientTests", "MockAPNs", "mock_apns.py")
BUNDLE = "com.example.PrinterMonitor"
TEST_PYTHON = os.path.join(ROOT, ".build", "test-venv", "bin", "python3")
TEAM_ID, KEY_ID = "TEAMID1234", "KEYID56789"  # the mock APNs' defaults


def start(cmd, **kwargs):
    """Starts a mock that prints "PORT n" first; returns (process, n)."""
    process = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, **kwargs)
    port = int(process.stdout.readline().split()[1])
    return process, port


def write_agent_inputs(work):
    """Writes into `work` the snapshot the mock HA serves (the sample print's
    auth and get_states lines, no events) and a devices file with one phone;
    returns their paths (snapshot, devices)."""
    snapshot = os.path.join(work, "snapshot.jsonl")
    with open(os.path.join(ROOT, "SampleEvents", "bambu-full-print.jsonl")) as source, open(snapshot, "w") as out:
        out.writelines(source.readline() for _ in range(3))
    devices = os.path.join(work, "devices.json")
    with open(devices, "w") as f:
        f.write('[{"apnsToken":"' + "ab" * 32 + '","settings":{"onPaused":true}}]')
    return snapshot, devices


def apns_environment(apns_workdir, apns_port, **settings):
    """os.environ plus the APNS_* settings for the mock APNs in apns_workdir, plus `settings`."""
    return dict(os.environ, APNS_TEAM_ID=TEAM_ID, APNS_KEY_ID=KEY_ID, APNS_BUNDLE_ID=BUNDLE,
                APNS_KEY_PATH=os.path.join(apns_workdir, "AuthKey_TEST.p8"),
                APNS_BASE_URL=f"https://127.0.0.1:{apns_port}", APNS_CA_FILE=os.path.join(apns_workdir, "ca.pem"),
                **settings)


def use_test_python():
    """Installs the test tooling (scripts/install-test-deps.sh: the mocks'
    packages in .build/test-venv) and runs this script again on that virtual
    environment's Python, so `sys.executable` has h2 and websockets. The
    system Python is never installed into."""
    if os.environ.get("PRINTBRIDGE_TEST_PYTHON") == TEST_PYTHON:
        return
    subprocess.check_call([os.path.join(ROOT, "scripts", "install-test-deps.sh")])
    os.environ["PRINTBRIDGE_TEST_PYTHON"] = TEST_PYTHON
    os.execv(TEST_PYTHON, [TEST_PYTHON] + sys.argv)
