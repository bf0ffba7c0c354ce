"""An agent for the chat suite: HTTP with an agent token, plus a realtime socket (websocket-client,
which selenium already brings) so that routing sees the agent online and connected. Frames are
collected on a thread; `wait_frame` waits for one that matches."""
import json
import threading

import websocket

from harness.http import API
from harness.waiting import wait_until


class Agent:
    def __init__(self, base, email, password, availability="online"):
        self.base = base
        login = API(base).post("/v1/agent/login", {"email": email, "password": password})
        self.token = login["token"]
        self.me = login["agent"]
        self.api = API(base, self.token)
        self.frames = []
        self._lock = threading.Lock()
        url = base.replace("http://", "ws://") + "/v1/realtime?access_token=" + self.token
        self.socket = websocket.create_connection(url, timeout=10)
        self.socket.settimeout(None)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        self.wait_frame(lambda f: f["type"] == "ready", what="the agent's ready frame")
        self.api.put("/v1/agent/availability", {"availability": availability})

    def _read(self):
        while True:
            try:
                text = self.socket.recv()
            except Exception:
                return
            if not text:
                return
            try:
                frame = json.loads(text)
            except ValueError:
                continue
            with self._lock:
                self.frames.append(frame)

    def wait_frame(self, predicate, timeout=20, what="a frame"):
        def find():
            with self._lock:
                return next((frame for frame in self.frames if predicate(frame)), None)
        return wait_until(find, timeout=timeout, message=f"the agent to receive {what}")

    def wait_event(self, conversation_id, predicate, timeout=20, what="an event"):
        """The first `event` frame of this conversation whose event matches."""
        return self.wait_frame(lambda f: f["type"] == "event" and f["event"]["conversation_id"] == conversation_id and predicate(f["event"]),
                               timeout=timeout, what=what)["event"]

    def wait_typing(self, conversation_id, is_typing, timeout=20):
        return self.wait_frame(lambda f: f["type"] == "typing" and f["conversation_id"] == conversation_id and f["is_typing"] == is_typing
                               and f["participant"]["role"] == "visitor", timeout=timeout, what=f"the visitor typing={is_typing}")

    def send_frame(self, frame):
        self.socket.send(json.dumps(frame))

    def subscribe(self, conversation_id):
        self.send_frame({"type": "subscribe", "conversation_id": conversation_id, "after_seq": 0})
        self.wait_frame(lambda f: f["type"] == "subscribed" and f["conversation_id"] == conversation_id, what="subscribed")

    def say(self, conversation_id, text, client_message_id=None):
        import uuid
        return self.api.post(f"/v1/conversations/{conversation_id}/messages",
                             {"client_message_id": client_message_id or str(uuid.uuid4()), "text": text})["event"]

    def events(self, conversation_id):
        return self.api.get(f"/v1/conversations/{conversation_id}/events?after=0&limit=500")["events"]

    def typing(self, conversation_id, is_typing=True):
        self.api.post(f"/v1/conversations/{conversation_id}/typing", {"is_typing": is_typing})

    def read(self, conversation_id, seq):
        self.api.post(f"/v1/conversations/{conversation_id}/read", {"seq": seq})

    def close(self):
        try:
            self.api.put("/v1/agent/availability", {"availability": "offline"})
        except Exception:
            pass
        try:
            self.socket.close()
        except Exception:
            pass


def reconnect(agent):
    """Opens a new socket for `agent` after a server restart (the old one died with the server)."""
    import websocket as _websocket
    url = agent.base.replace("http://", "ws://") + "/v1/realtime?access_token=" + agent.token
    agent.socket = _websocket.create_connection(url, timeout=10)
    agent.socket.settimeout(None)
    with agent._lock:
        agent.frames = []
    agent._thread = threading.Thread(target=agent._read, daemon=True)
    agent._thread.start()
    agent.wait_frame(lambda f: f["type"] == "ready", what="the agent's ready frame after reconnecting")
    agent.api.put("/v1/agent/availability", {"availability": "online"})
