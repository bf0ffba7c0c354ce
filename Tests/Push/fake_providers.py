"""Local fakes of Apple's APNs (token-based auth) and Google's FCM HTTP v1 (with its OAuth token
endpoint), for parleyd's push tests. They check requests the way the real services do, answer with
the real services' errors, and record everything they got.

    python fake_providers.py --dir DIR [--exit-on-stdin-eof]

DIR must exist; the fake writes its credentials there (ca.pem, apns.p8, service-account.json and
the server's own certificate), then prints ONE JSON line to stdout saying where everything is.
APNs, OAuth and FCM are served over TLS (HTTP/2 by ALPN, HTTP/1.1 too) on `tls_url`; the control
API is plain HTTP on `control_url`:
    GET  /requests[?provider=apns|fcm|oauth]   what the TLS port got, in arrival order
    POST /reset                                forget the records and the modes
    POST /mode {"down":bool,"throttle":bool,"gone":[tokens],"bad":[tokens]}   replaces those given
See README.md beside this file.
"""
import argparse
import asyncio
import json
import os
import re
import secrets
import signal
import socket
import sys
import time
import uuid
from urllib.parse import parse_qs

import jwt
import trustme
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from hypercorn.asyncio import serve
from hypercorn.config import Config

APNS_KEY_ID = "FAKEKEY123"
APNS_TEAM_ID = "FAKETEAM12"
FCM_PROJECT = "parley-fake"
FCM_CLIENT_EMAIL = "parley@parley-fake.iam.gserviceaccount.com"
FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
APNS_PUSH_TYPES = {"alert", "background", "voip"}
# The fields of FCM's Message and SendMessageRequest: Google rejects any other name.
FCM_MESSAGE_FIELDS = {"name", "data", "notification", "android", "webpush", "apns", "fcm_options", "fcmOptions",
                      "token", "topic", "condition"}
FCM_REQUEST_FIELDS = {"message", "validate_only", "validateOnly"}


class State:
    def __init__(self):
        self.records = []
        self.access_tokens = set()  # issued by /token; kept across /reset so a cached token stays good
        self.reset()

    def reset(self):
        self.records.clear()
        self.down = False
        self.throttle = False
        self.gone = set()
        self.bad = set()


state = State()
keys = {}  # "apns": EC public key, "fcm": RSA public key, "token_uri": str


# MARK: - Credentials

def pkcs8(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def write_credentials(directory, tls_url):
    """Writes the CA, the server's certificate, the APNs .p8 key and the FCM service account."""
    ca = trustme.CA()
    ca.cert_pem.write_to_path(os.path.join(directory, "ca.pem"))
    server = ca.issue_cert("127.0.0.1", "localhost")
    server.cert_chain_pems[0].write_to_path(os.path.join(directory, "server.pem"))
    for pem in server.cert_chain_pems[1:]:
        pem.write_to_path(os.path.join(directory, "server.pem"), append=True)
    server.private_key_pem.write_to_path(os.path.join(directory, "server.key"))

    apns_key = ec.generate_private_key(ec.SECP256R1())
    with open(os.path.join(directory, "apns.p8"), "w") as file:
        file.write(pkcs8(apns_key))  # Apple's .p8 files are PKCS#8 PEM ("BEGIN PRIVATE KEY")
    keys["apns"] = apns_key.public_key()

    fcm_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    keys["fcm"] = fcm_key.public_key()
    keys["token_uri"] = f"{tls_url}/token"
    account = {
        "type": "service_account",
        "project_id": FCM_PROJECT,
        "private_key_id": secrets.token_hex(20),
        "private_key": pkcs8(fcm_key),
        "client_email": FCM_CLIENT_EMAIL,
        "client_id": "100000000000000000000",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": keys["token_uri"],
        "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
        "client_x509_cert_url": f"https://www.googleapis.com/robot/v1/metadata/x509/{FCM_CLIENT_EMAIL.replace('@', '%40')}",
        "universe_domain": "googleapis.com",
    }
    with open(os.path.join(directory, "service-account.json"), "w") as file:
        json.dump(account, file, indent=2)


# MARK: - APNs

def check_provider_token(authorization):
    """Apple's token-based auth: an ES256 JWT signed with the .p8 key, `kid` in its header, the team
    id as `iss`, and an `iat` no older than an hour. Returns an error reason, or None."""
    if not authorization:
        return "MissingProviderToken"
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token:
        return "InvalidProviderToken"
    try:
        header = jwt.get_unverified_header(token)
        # `iat` is checked below, in Apple's terms; Apple's tokens carry no `exp`.
        claims = jwt.decode(token, keys["apns"], algorithms=["ES256"],
                            options={"verify_exp": False, "verify_iat": False, "require": ["iss", "iat"]})
    except jwt.PyJWTError as error:
        print(f"apns: bad provider token: {error}", file=sys.stderr)
        return "InvalidProviderToken"
    if header.get("kid") != APNS_KEY_ID or claims.get("iss") != APNS_TEAM_ID:
        return "InvalidProviderToken"
    iat = claims.get("iat")
    if not isinstance(iat, (int, float)) or iat > time.time() + 60:
        return "InvalidProviderToken"
    if iat < time.time() - 3600:
        return "ExpiredProviderToken"
    return None


def is_uuid(text):
    return re.fullmatch(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", text) is not None


def apns(method, device_token, headers, raw_headers, body):
    """Returns (status, JSON body or None, extra response headers)."""
    apns_id = headers.get("apns-id")
    reply_headers = [("apns-id", apns_id if apns_id and is_uuid(apns_id) else str(uuid.uuid4()))]

    def error(status, reason, **extra):
        return status, {"reason": reason, **extra}, reply_headers

    if method != "POST":
        return error(405, "MethodNotAllowed")
    if not device_token:
        return error(400, "MissingDeviceToken")
    names = [name for name, _ in raw_headers]
    if any(names.count(name) > 1 for name in names if name.startswith("apns-") or name == "authorization"):
        return error(400, "DuplicateHeaders")
    if reason := check_provider_token(headers.get("authorization")):
        return error(403, reason)
    if not headers.get("apns-topic"):
        return error(400, "MissingTopic")
    push_type = headers.get("apns-push-type")
    if push_type not in APNS_PUSH_TYPES:
        return error(400, "InvalidPushType")
    if apns_id is not None and not is_uuid(apns_id):
        return error(400, "BadMessageId")
    if headers.get("apns-priority") not in (None, "5", "10"):
        return error(400, "BadPriority")
    if len(headers.get("apns-collapse-id", "").encode()) > 64:
        return error(400, "BadCollapseId")
    if not re.fullmatch(r"\d*", headers.get("apns-expiration", "")):
        return error(400, "BadExpirationDate")
    if not body:
        return error(400, "PayloadEmpty")
    if len(body) > (5120 if push_type == "voip" else 4096):
        return error(413, "PayloadTooLarge")
    try:
        payload = json.loads(body)
    except ValueError:
        payload = None
    if not isinstance(payload, dict) or not isinstance(payload.get("aps"), dict):
        return error(400, "BadPayload")
    if state.down:
        return error(503, "ServiceUnavailable")
    if state.throttle:
        return error(429, "TooManyRequests")
    if device_token in state.bad:
        return error(400, "BadDeviceToken")
    if device_token in state.gone:
        return error(410, "Unregistered", timestamp=int(time.time() * 1000))
    return 200, None, reply_headers


# MARK: - FCM and its OAuth token endpoint

def oauth(method, body):
    """Google's token endpoint for a service account's signed JWT (RFC 7523)."""
    def error(code, description):
        return 400, {"error": code, "error_description": description}, []

    form = parse_qs(body.decode(errors="replace"))
    if method != "POST":
        return 405, {"error": "invalid_request", "error_description": "POST only"}, []
    if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
        return error("unsupported_grant_type", f"Invalid grant_type: {form.get('grant_type', [''])[0]}")
    assertion = form.get("assertion", [""])[0]
    try:
        claims = jwt.decode(assertion, keys["fcm"], algorithms=["RS256"], audience=keys["token_uri"],
                            issuer=FCM_CLIENT_EMAIL, options={"require": ["iss", "aud", "iat", "exp", "scope"]})
    except jwt.PyJWTError as failure:
        return error("invalid_grant", f"Invalid JWT: {failure}")
    if FCM_SCOPE not in str(claims["scope"]).split():
        return error("invalid_scope", f"The scope must include {FCM_SCOPE}")
    if claims["exp"] - claims["iat"] > 3600:
        return error("invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes)")
    access_token = "ya29.fake-" + secrets.token_urlsafe(32)
    state.access_tokens.add(access_token)
    return 200, {"access_token": access_token, "expires_in": 3600, "token_type": "Bearer"}, []


def google_error(code, status, message, fcm_code=None):
    error = {"code": code, "message": message, "status": status}
    if fcm_code:
        error["details"] = [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": fcm_code}]
    return code, {"error": error}, []


def fcm(method, project, headers, body):
    """FCM HTTP v1 messages:send. Returns (status, JSON body, extra headers) and the message's token."""
    if method != "POST":
        return google_error(405, "INVALID_ARGUMENT", "Only POST is supported."), None
    scheme, _, access_token = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or access_token not in state.access_tokens:
        return google_error(401, "UNAUTHENTICATED",
                            "Request had invalid authentication credentials. Expected OAuth 2 access token, "
                            "login cookie or other valid authentication credential."), None
    if project != FCM_PROJECT:
        return google_error(404, "NOT_FOUND", "Requested entity was not found."), None
    try:
        request = json.loads(body)
    except ValueError:
        request = None
    if not isinstance(request, dict) or not isinstance(request.get("message"), dict):
        return google_error(400, "INVALID_ARGUMENT", "Invalid JSON payload received."), None
    message = request["message"]
    token = message.get("token") if isinstance(message.get("token"), str) else None
    # The proto's JSON mapping: unknown names, non-string data values and a missing target are all 400.
    unknown = sorted(set(request) - FCM_REQUEST_FIELDS) + sorted(set(message) - FCM_MESSAGE_FIELDS)
    if unknown:
        return google_error(400, "INVALID_ARGUMENT",
                            f'Invalid JSON payload received. Unknown name "{unknown[0]}": Cannot find field.'), token
    for where, data in (("message.data", message.get("data")),
                        ("message.android.data", (message.get("android") or {}).get("data")
                         if isinstance(message.get("android"), dict) else None)):
        if data is not None and (not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values())):
            return google_error(400, "INVALID_ARGUMENT",
                                f"Invalid value at '{where}': every value must be a string.", "INVALID_ARGUMENT"), token
    if not token:
        return google_error(400, "INVALID_ARGUMENT", "Recipient of the message is not set.", "INVALID_ARGUMENT"), None
    if state.down:
        return google_error(503, "UNAVAILABLE", "The service is currently unavailable.", "UNAVAILABLE"), token
    if state.throttle:
        return google_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded for sending messages.", "QUOTA_EXCEEDED"), token
    if token in state.bad:
        return google_error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                            "INVALID_ARGUMENT"), token
    if token in state.gone:
        return google_error(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED"), token
    return (200, {"name": f"projects/{FCM_PROJECT}/messages/0:{time.time_ns()}%{secrets.token_hex(8)}"}, []), token


# MARK: - Control

def control(method, path, query, body):
    if method == "GET" and path == "/requests":
        provider = parse_qs(query).get("provider", [None])[0]
        return 200, [r for r in state.records if provider is None or r["provider"] == provider], []
    if method == "POST" and path == "/reset":
        state.reset()
        return 200, {}, []
    if method == "POST" and path == "/mode":
        try:
            mode = json.loads(body or b"{}")
        except ValueError:
            return 400, {"error": "not JSON"}, []
        for name in ("down", "throttle"):
            if name in mode:
                setattr(state, name, bool(mode[name]))
        for name in ("gone", "bad"):
            if name in mode:
                setattr(state, name, set(mode[name] or []))
        return 200, {"down": state.down, "throttle": state.throttle,
                     "gone": sorted(state.gone), "bad": sorted(state.bad)}, []
    return 404, {"error": "not found"}, []


# MARK: - ASGI

async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while (message := await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    if scope["type"] != "http":
        return
    arrived = time.time()  # when the request began to arrive (benchmarks measure commit → provider)
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    raw_headers = [(name.decode("latin-1").lower(), value.decode("latin-1")) for name, value in scope["headers"]]
    headers = {}
    for name, value in raw_headers:
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    method, path = scope["method"], scope["path"]

    if scope["scheme"] == "http":  # the plain control port
        status, reply, extra = control(method, path, scope["query_string"].decode(), body)
    else:
        token = None
        if match := re.fullmatch(r"/3/device/([^/]*)", path):
            provider, token = "apns", match.group(1)
            status, reply, extra = apns(method, token, headers, raw_headers, body)
        elif path == "/token":
            provider = "oauth"
            status, reply, extra = oauth(method, body)
        elif match := re.fullmatch(r"/v1/projects/([^/]+)/messages:send", path):
            provider = "fcm"
            (status, reply, extra), token = fcm(method, match.group(1), headers, body)
        else:
            provider = "apns" if path.startswith("/3/") else "fcm"
            status, reply, extra = (404, {"reason": "BadPath"}, []) if provider == "apns" else \
                google_error(404, "NOT_FOUND", "The requested URL was not found on this server.")
        state.records.append({"provider": provider, "path": path, "http_version": scope["http_version"],
                              "headers": headers, "body": body.decode(errors="replace"), "status": status,
                              "token": token or None, "at": arrived})
    data = b"" if reply is None else json.dumps(reply).encode()
    response_headers = [(b"content-length", str(len(data)).encode())]
    if reply is not None:
        response_headers.append((b"content-type", b"application/json; charset=UTF-8"))
    response_headers += [(name.encode(), value.encode()) for name, value in extra]
    await send({"type": "http.response.start", "status": status, "headers": response_headers})
    await send({"type": "http.response.body", "body": data})


def listening_socket():
    """Binds port 0 here, so the real port is known before hypercorn takes the socket over."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)  # connections wait in the backlog until hypercorn accepts
    return sock.getsockname()[1], sock.detach()  # detached: hypercorn's socket object owns the fd


async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", required=True, help="an existing directory for the credentials")
    parser.add_argument("--exit-on-stdin-eof", action="store_true",
                        help="stop when standard input closes (so a crashed test leaves no fake behind)")
    args = parser.parse_args()
    directory = os.path.abspath(args.dir)

    tls_port, tls_fd = listening_socket()
    control_port, control_fd = listening_socket()
    tls_url = f"https://127.0.0.1:{tls_port}"
    write_credentials(directory, tls_url)

    config = Config()
    config.bind = [f"fd://{tls_fd}"]
    config.insecure_bind = [f"fd://{control_fd}"]
    config.certfile = os.path.join(directory, "server.pem")
    config.keyfile = os.path.join(directory, "server.key")
    config.alpn_protocols = ["h2", "http/1.1"]
    config.graceful_timeout = 1
    # APNs keeps idle connections open for long; hypercorn's 5 s default would race a client's next push.
    config.keep_alive_timeout = 600
    # Nor does APNs close a connection after a number of requests (hypercorn's default is 1,000,
    # which drops the streams in flight at that moment).
    config.keep_alive_max_requests = 1_000_000_000
    config.accesslog = None
    config.errorlog = "-"  # stderr: stdout carries only the one JSON line

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    # A child inherits its parent's blocked signals: a Swift test process blocks SIGTERM on the
    # thread that spawns us, and a blocked SIGTERM would never stop the fake.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    if args.exit_on_stdin_eof:
        loop.add_reader(sys.stdin.fileno(), lambda: os.read(sys.stdin.fileno(), 4096) or stop.set())

    print(json.dumps({
        "tls_url": tls_url,
        "control_url": f"http://127.0.0.1:{control_port}",
        "ca_file": os.path.join(directory, "ca.pem"),
        "apns_key_file": os.path.join(directory, "apns.p8"),
        "apns_key_id": APNS_KEY_ID,
        "apns_team_id": APNS_TEAM_ID,
        "service_account_file": os.path.join(directory, "service-account.json"),
        "fcm_project_id": FCM_PROJECT,
    }, separators=(",", ":")), flush=True)
    await serve(app, config, shutdown_trigger=stop.wait)


if __name__ == "__main__":
    asyncio.run(main())
