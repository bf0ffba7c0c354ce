"""Fixtures of the desk suite: one parleyd for the session (with a second agent, a second queue and a
canned response made through the admin API), browsers on the desk, visitors on the CLI.

Every browser is checked when its test ends: no JS error, no CSP violation, no failed request that
the test did not expect. On a failure, screenshots, page sources, console logs and CLI output go
to .build/desk-artifacts/."""
import os
import re
import shutil
import tempfile
from types import SimpleNamespace

import pytest

from harness.browser import CHROMEDRIVER, CHROMIUM, Desk, make_driver
from harness.http import API
from harness.server import Parleyd
from harness.visitor import ChatCLI

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ARTIFACTS = os.path.join(ROOT, ".build", "desk-artifacts")
SECOND_AGENT = {"name": "Alan Turing", "email": "alan@desk.test", "password": "enigma-machine-42"}
CANNED = {"shortcut": "refund", "title": "Refund policy", "text": "Refunds are paid within 5 working days to the card you used."}


def pytest_configure(config):
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    if missing:
        raise pytest.UsageError(f"the desk suite needs Chromium and chromedriver; missing: {', '.join(missing)} "
                                "(apt-get install chromium chromium-driver)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


def failed(request):
    return any(getattr(getattr(request.node, f"report_{when}", None), "failed", False) for when in ("setup", "call"))


def bin_dir():
    path = os.environ.get("PARLEY_BIN_DIR")
    if not path:
        raise pytest.UsageError("PARLEY_BIN_DIR is not set (Tests/Desk/run.sh sets it from `swift build --show-bin-path`)")
    for name in ("parleyd", "parley"):
        if not os.access(os.path.join(path, name), os.X_OK):
            raise pytest.UsageError(f"{path}/{name} is missing: build it first (swift build --product {name})")
    return path


@pytest.fixture(scope="session")
def workdir():
    path = tempfile.mkdtemp(prefix="parley-desk-suite-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def server(workdir):
    os.makedirs(ARTIFACTS, exist_ok=True)
    parleyd = Parleyd(os.path.join(bin_dir(), "parleyd"), os.path.join(workdir, "data"), os.path.join(ARTIFACTS, "parleyd.log"))
    parleyd.start()
    yield parleyd
    parleyd.stop()


@pytest.fixture
def own_server(workdir):
    """Starts a parleyd of the test's own: own_server(name, extra_arguments). A test requests it before
    `desks`, so these servers stop only after the browsers are checked and closed: a desk must never see
    its server go away, which would be a console problem of the test's making."""
    started = []

    def start(name, extra_arguments=()):
        parleyd = Parleyd(os.path.join(bin_dir(), "parleyd"), os.path.join(workdir, f"{name}-data"),
                          os.path.join(ARTIFACTS, f"parleyd-{name}.log"), extra_arguments=list(extra_arguments))
        started.append(parleyd)
        parleyd.start()
        return parleyd

    yield start
    for parleyd in started:
        parleyd.stop()


@pytest.fixture(scope="session")
def world(server):
    """The admin (demo agent), a second agent in a second queue, and a canned response."""
    demo = server.demo
    assert demo, "parleyd did not print its first-start banner (is the data directory fresh?)"
    api = API(server.base)
    login = api.post("/v1/agent/login", {"email": demo["email"], "password": demo["password"]})
    admin = api.with_token(login["token"])
    app = demo["app_id"]
    me = login["agent"]
    # Room for every conversation the suite opens, whatever a failed test leaves behind.
    admin.patch(f"/v1/admin/apps/{app}/agents/{me['id']}", {"capacity": 50})
    billing = admin.post(f"/v1/admin/apps/{app}/queues", {"name": "Billing"})
    alan = admin.post(f"/v1/admin/apps/{app}/agents", {
        "name": SECOND_AGENT["name"], "email": SECOND_AGENT["email"], "password": SECOND_AGENT["password"],
        "role": "agent", "queue_ids": [billing["id"]], "capacity": 3,
    })["agent"]
    canned = admin.post(f"/v1/admin/apps/{app}/canned-responses", CANNED)
    return SimpleNamespace(
        base=server.base, app_id=app, support_queue=demo["queue_id"], billing_queue=billing["id"],
        admin_email=demo["email"], admin_password=demo["password"], admin_name=me["name"], admin_id=me["id"], admin=admin,
        alan=alan, alan_email=SECOND_AGENT["email"], alan_password=SECOND_AGENT["password"], canned=canned, api=api,
    )


@pytest.fixture
def desks(request, server):
    """Makes browser windows on the desk: desks.new(label). Checks their consoles when the test ends."""
    opened = []

    def new(label="desk", width=1280, height=900):
        desk = Desk(make_driver(width, height), server.base, label)
        opened.append(desk)
        return desk

    yield SimpleNamespace(new=new, opened=opened)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    problems = []
    for desk in opened:
        if failed(request):
            desk.save_artifacts(ARTIFACTS, name)
        problems += [f"[{desk.label}] {entry['level']}: {entry['message']}" for entry in desk.console_problems()]
    # Artifacts need live browsers: quit them only after saving.
    if problems and not failed(request):
        for desk in opened:
            desk.save_artifacts(ARTIFACTS, name)
    for desk in opened:
        desk.quit()
    if problems and not failed(request):
        pytest.fail("browser console problems:\n" + "\n".join(problems))


@pytest.fixture
def admin_desk(desks, world):
    return desks.new("admin").login(world.admin_email, world.admin_password)


@pytest.fixture
def visitors(request, server, world, workdir):
    """Starts `parley chat` visitors: visitors.new(name, subject=…). Ends their conversations afterwards."""
    started = []

    def new(name="Ada", subject=None, email=None, storage=None):
        """A visitor; the same `storage` again is the same device (and visitor)."""
        storage = storage or tempfile.mkdtemp(prefix="visitor-", dir=workdir)
        cli = ChatCLI(os.path.join(bin_dir(), "parley"), server.base, world.app_id, storage, name,
                      email=email, subject=subject, log_path=os.path.join(ARTIFACTS, "visitors.log"))
        started.append(cli)
        return cli

    yield SimpleNamespace(new=new)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    for cli in started:
        if failed(request):
            os.makedirs(ARTIFACTS, exist_ok=True)
            with open(os.path.join(ARTIFACTS, f"{name}-visitor-{cli.name[:20]}.txt".replace("/", "_")), "w") as file:
                file.write(cli.text())
        # Leave no conversation assigned behind: the next test starts with an empty "Mine".
        if server.is_running:
            try:
                cli.http().post(f"/v1/conversations/{cli.conversation_id}/end")
            except Exception:
                pass
        cli.close()


@pytest.fixture
def chat(admin_desk, visitors, world):
    """A conversation from a new visitor (Ada Lovelace), assigned to the admin, open in the admin's desk."""
    cli = visitors.new("Ada Lovelace", subject="Order #42 missing")
    cli.wait_for(f"· {world.admin_name} joined")
    admin_desk.open_conversation(cli.conversation_id)
    return admin_desk, cli
