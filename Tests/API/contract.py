"""Runs schemathesis against a real parleyd: starts it with a fresh data directory, makes the
callers (the operator; an admin, an agent and two visitors of the demo app; an admin, an agent and
a visitor of a second app), writes their tokens into a Web Fuzzing Commons auth document, and runs every phase,
the stateful one included, in three passes. Exits non-zero when any pass has a failed check."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "Desk"))
from harness.http import API  # noqa: E402  (the desk suite's small JSON client and parleyd starter)
from harness.server import Parleyd  # noqa: E402

OPERATOR_TOKEN = "api-contract-operator-token"

# Checks that fail the run: no 5xx, every answer as documented, and no peer reading another's object.
CHECKS = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "response_headers_conformance",
    "ignored_auth",
    "use_after_free",
    "ensure_resource_availability",
    "object_level_authorization",
]

# Operations that would end the run's own sessions: logging out, and changing or resetting an agent
# (a new password or `disabled` revokes the agent's token). Their answers are checked in Swift
# (OpenAPIDocumentTests); everything else is fuzzed here.
EXCLUDED = [
    ("POST", "/v1/visitor/logout"),
    ("POST", "/v1/agent/logout"),
    ("POST", "/v1/desk/logout"),
    ("PATCH", "/v1/admin/apps/{app}/agents/{agent}"),
    ("POST", "/v1/admin/apps/{app}/agents/{agent}/reset-password"),
]


# Which identity a request goes out as: schemathesis tries a pass's identities in order on each
# operation and keeps the first one the operation does not refuse with 401 or 403. Parley answers
# 404 where a caller may not even learn that a thing exists (a visitor on an admin route or on a
# conversation's internal notes), so each group of routes gets its own pass with the right caller
# first. Peers are the users whose objects must stay private to each other.
STAFF_ROUTES = r"^/v1/(team|canned-responses|visitors/|agent/)|/notes$|/transfer$|/accept$"
ADMIN_ROUTES = r"^/v1/admin/"
PASSES = [
    ("visitor", ["visitor", "agent", "operator", "second_visitor", "other_app_agent", "other_app_visitor"],
     ["visitor", "second_visitor", "other_app_agent"],
     ["--exclude-path-regex", f"{STAFF_ROUTES}|{ADMIN_ROUTES}"]),
    ("agent", ["agent", "operator", "other_app_agent", "visitor"],
     ["agent", "other_app_agent"],
     ["--include-path-regex", STAFF_ROUTES]),
    ("admin", ["admin", "operator", "other_app_admin", "agent", "visitor"],
     ["admin", "other_app_admin"],
     ["--include-path-regex", ADMIN_ROUTES]),
]


def make_callers(base, demo):
    """The identities of the run, each as the bearer token it sends, and the ids of what they own."""
    operator = API(base, OPERATOR_TOKEN)
    app = demo["app_id"]
    ids = {"apps": [app], "queues": [demo["queue_id"]], "agents": [], "visitors": [], "conversations": []}

    def agent_of(app_id, queue_id, name, role="agent"):
        email = f"{name}@{app_id.lower()}.example"
        created = operator.post(f"/v1/admin/apps/{app_id}/agents",
                                {"name": name, "email": email, "password": "password-123", "role": role, "queue_ids": [queue_id]})
        ids["agents"].append(created["agent"]["id"])
        return API(base).post("/v1/agent/login", {"email": email, "password": "password-123"})["token"]

    def visitor_of(app_id, device):
        session = API(base).post("/v1/visitor/session", {"app_id": app_id, "device_id": device, "name": device})
        ids["visitors"].append(session["visitor"]["id"])
        return session["token"]

    other = operator.post("/v1/admin/apps", {"name": "Other"})["app"]["id"]
    other_queue = operator.post(f"/v1/admin/apps/{other}/queues", {"name": "Main"})["id"]
    ids["apps"].append(other)
    ids["queues"].append(other_queue)
    callers = {
        "visitor": visitor_of(app, "contract-visitor-1"),
        "second_visitor": visitor_of(app, "contract-visitor-2"),
        "agent": agent_of(app, demo["queue_id"], "agent"),
        "admin": API(base).post("/v1/agent/login", {"email": demo["email"], "password": demo["password"]})["token"],
        "operator": OPERATOR_TOKEN,
        "other_app_agent": agent_of(other, other_queue, "outsider"),
        "other_app_admin": agent_of(other, other_queue, "outsider-admin", role="admin"),
        "other_app_visitor": visitor_of(other, "contract-visitor-3"),
    }
    # Something to read from the start: two conversations of each visitor, with a message, one of
    # them ended (so it can be rated and its post-chat form answered).
    for name in ("visitor", "second_visitor", "other_app_visitor"):
        visitor = API(base, callers[name])
        for index in (1, 2):
            conversation = visitor.post("/v1/conversations", {"subject": f"Opened by {name}"})
            visitor.post(f"/v1/conversations/{conversation['id']}/messages", {"client_message_id": f"{name}-{index}", "text": "Hello"})
            if index == 2:
                visitor.post(f"/v1/conversations/{conversation['id']}/end")
            ids["conversations"].append(conversation["id"])
    return callers, ids


def configuration(auth, peers, ids):
    """schemathesis.toml: the auth document and its peers, and the ids that exist, which path and
    query parameters take most of the time (the rest are generated, so unknown ids are tried too)."""
    lines = [
        "# A request that gets no answer in 5 s fails, except a long poll (`wait` up to 30 s).",
        "request-timeout = 5",
        "",
        "[[operations]]",
        'include-path = "/v1/conversations/{id}/events"',
        "request-timeout = 35",
        "",
        "[auth.wfc]",
        f"path = {json.dumps(str(auth))}",
        f"peers = {json.dumps(peers)}",
        "",
    ]
    for name, values in ids.items():
        lines += [f"[dictionaries.{name}]", f"values = {json.dumps(values)}", ""]
    lines.append("[parameters]")
    for parameter, dictionary in [("path.app", "apps"), ("path.queue", "queues"), ("query.queue", "queues"), ("path.agent", "agents"),
                                  ("path.visitor", "visitors"), ("path.id", "conversations")]:
        lines.append(f'"{parameter}" = {{ dictionary = "{dictionary}", probability = 0.8 }}')
    return "\n".join(lines) + "\n"


def main(arguments):
    work = Path(tempfile.mkdtemp(prefix="parley-api-"))
    server = Parleyd(str(Path(os.environ["PARLEY_BIN_DIR"]) / "parleyd"), str(work / "data"), str(work / "parleyd.log"),
                     extra_arguments=["--admin-token", OPERATOR_TOKEN])
    failed = ["setup"]
    server.start()
    try:
        callers, ids = make_callers(server.base, server.demo)
        document = API(server.base).get("/v1/openapi.json")
        excluded = [document["paths"][path][method.lower()]["operationId"] for method, path in EXCLUDED]
        started = time.monotonic()
        failed = []
        for name, identities, peers, selection in PASSES:
            folder = work / name
            folder.mkdir()
            auth = folder / "auth.json"
            auth.write_text(json.dumps({"auth": [
                {"name": identity, "fixedHeaders": [{"name": "Authorization", "value": f"Bearer {callers[identity]}"}]}
                for identity in identities
            ]}))
            config = folder / "schemathesis.toml"
            config.write_text(configuration(auth, peers, ids))
            command = [
                str(ROOT / ".venv" / "bin" / "schemathesis"), "--config-file", str(config), "run", f"{server.base}/v1/openapi.json",
                *selection,
                "--checks", ",".join(CHECKS),
                "--phases", "examples,coverage,fuzzing,stateful",
                "--max-examples", "25",
                "--seed", os.environ.get("PARLEY_API_SEED", "20261124"),
                "--workers", "1",  # Python 3.11's ast is not thread-safe, and hypothesis parses lambdas with it
                "--report", "junit", "--report-dir", str(folder / "report"),
                *[flag for operation in excluded for flag in ("--exclude-operation-id", operation)],
                *arguments,
            ]
            print(f"=== {name}: {', '.join(identities)} (peers: {', '.join(peers)})", flush=True)
            if subprocess.run(command, cwd=folder).returncode != 0:
                failed.append(name)
        print(f"schemathesis: {len(PASSES) - len(failed)} of {len(PASSES)} passes clean after {time.monotonic() - started:.0f} s"
              + (f"; failed: {', '.join(failed)} (parleyd's log and the reports are in {work})" if failed else ""))
        return 1 if failed else 0
    finally:
        server.stop()
        if not failed:
            shutil.rmtree(work, ignore_errors=True)



if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
