"""Shared by the scripts that run PrintBridge against the mocks
(daemon_benchmark.py, apns_benchmark.py): starting a
mock, the inputs an agent is started with, and the environment that points
PrintBridge at the mock APNs."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MOCK_HA = os.path.join(ROOT, "Tests", "DaemonTests", "MockHA", "mock_ha.py")
MOCK_APNS = os.path.join(ROOT, "Tests", "APNsClientTests", "MockAPNs", "mock_apns.py")
BUNDLE = "com.example.PrinterMonitor"
TEST_PYTHON = os.path.join(ROOT, ".build", "test-venv", "bin", "python3")
TEAM_ID, KEY_ID = "TEAMID1234", "KEYID56789"  # the mock APNs' defaults


def run_as_root(command):
    """Runs an installation command as root (sudo when not root)."""
    subprocess.check_call(command if os.getuid() == 0 else ["sudo"] + command, stdout=subprocess.DEVNULL)


def install_packages(packages):
    """Installs Debian packages a benchmark needs on a fresh machine; False
    (with the reason printed) when they cannot be installed here."""
    try:
        run_as_root(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + list(packages))
        return True
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"could not install {' '.join(packages)}: {error}", file=sys.stderr)
        return False


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


def ensure_orjson():
    """orjson (the parse-only peers' parser) in the running virtual environment
    (after `use_test_python`: .build/test-venv), installed when missing."""
    try:
        import orjson  # noqa: F401
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "orjson"])


def threads(pid):
    """{tid: (name, voluntary, involuntary)} of the process's threads now."""
    result = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                fields = dict(line.split(":", 1) for line in f if "ctxt_switches" in line)
            result[tid] = (name, int(fields["voluntary_ctxt_switches"]), int(fields["nonvoluntary_ctxt_switches"]))
        except FileNotFoundError:
            pass  # the thread ended
    return result


def wakeups_by_name(before, after, seconds):
    """Context switches a minute between two `threads` readings, by thread
    name: ([(name, threads, voluntary, involuntary)], total), busiest first."""
    scale = 60 / seconds
    by_name = {}
    for tid, (name, voluntary, involuntary) in after.items():
        _, voluntary0, involuntary0 = before.get(tid, (name, 0, 0))
        entry = by_name.setdefault(name, [0, 0, 0])
        entry[0] += 1
        entry[1] += voluntary - voluntary0
        entry[2] += involuntary - involuntary0
    rows = sorted(((name, count, v * scale, i * scale) for name, (count, v, i) in by_name.items()),
                  key=lambda row: -(row[2] + row[3]))
    return rows, sum(v + i for _, _, v, i in rows)


def agent_binary(args):
    """The printbridge a benchmark measures: --binary, else the deployed
    build (scripts/build-release.sh), built first unless --skip-build."""
    if args.binary:
        return args.binary
    if not args.skip_build:
        subprocess.run([os.path.join(ROOT, "scripts", "build-release.sh")], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(ROOT, ".build", "deploy", "release", "printbridge")


def start_dry_run_agent(binary, work, api_host="127.0.0.1"):
    """The mock HA serving the sample snapshot (no events) and `run
    --dry-run` against it with one phone and the API on a free port of
    `api_host` (beyond loopback, e.g. 0.0.0.0, the API speaks HTTPS with its
    own certificate); returns (ha, agent, api_port). The caller stops both."""
    import socket
    snapshot, devices = write_agent_inputs(work)
    ha, ha_port = start([sys.executable, MOCK_HA, "--events", snapshot, "--token", "bench"])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        api_port = probe.getsockname()[1]
    env = dict(os.environ, HA_URL=f"http://127.0.0.1:{ha_port}", HA_TOKEN="bench", STATE_DIR=work,
               API_LISTEN=f"{api_host}:{api_port}", API_TOKEN="bench-token-0123456789", LOG_LEVEL="warning")
    agent = subprocess.Popen([binary, "run", "--dry-run", "--devices", devices], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return ha, agent, api_port


def callgrind_instructions(command, env=None, who="callgrind"):
    """(instructions, stdout) of `command` run to its end under callgrind:
    its total count, which does not move with the machine's load. Exits
    with the end of valgrind's output when the run fails."""
    import re
    import tempfile
    with tempfile.TemporaryDirectory(prefix="printbridge-callgrind-") as workdir:
        # The program runs without its debug information: valgrind 3.19
        # (Debian 12) gives up on the DWARF 5 that clang writes for the C
        # targets and shims. Its symbols stay.
        plain = os.path.join(workdir, os.path.basename(command[0]))
        if subprocess.run(["strip", "--strip-debug", "-o", plain, command[0]], capture_output=True).returncode == 0:
            command = [plain] + command[1:]
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={workdir}/callgrind.out"] + command,
            capture_output=True, text=True, env=env)
        # CALLGRIND_KEEP=DIR keeps the profile (for callgrind_annotate) as DIR/<program>.callgrind.out.
        keep = os.environ.get("CALLGRIND_KEEP")
        if keep and os.path.exists(f"{workdir}/callgrind.out"):
            os.makedirs(keep, exist_ok=True)
            shutil.copy(f"{workdir}/callgrind.out", os.path.join(keep, os.path.basename(command[0]) + ".callgrind.out"))
    found = re.search(r"Collected : (\d+)", result.stderr)
    if result.returncode != 0 or not found:
        sys.exit(f"{who}: callgrind failed:\n{result.stdout[-1000:]}{result.stderr[-2000:]}")
    return int(found.group(1)), result.stdout
