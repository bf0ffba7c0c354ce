"""Conversations made over HTTP, as a visitor's app would (no CLI): for corpora the desk searches,
lists and pages through, where only the data matters."""
import uuid

from .http import API


class HTTPVisitor:
    """A visitor with a fresh device: opens conversations, writes, ends."""

    def __init__(self, world, name, email=None, attributes=None):
        body = {"app_id": world.app_id, "device_id": str(uuid.uuid4()), "name": name}
        if email:
            body["email"] = email
        if attributes:
            body["attributes"] = attributes
        session = API(world.base).post("/v1/visitor/session", body)
        self.api = API(world.base, session["token"])
        self.id = session["visitor"]["id"]
        self.name = name

    def open(self, subject=None, queue_id=None):
        """Opens a conversation; returns its id."""
        body = {}
        if subject:
            body["subject"] = subject
        if queue_id:
            body["queue_id"] = queue_id
        return self.api.post("/v1/conversations", body)["id"]

    def say(self, conversation_id, text):
        """Writes a message; returns its seq."""
        answer = self.api.post(f"/v1/conversations/{conversation_id}/messages", {"client_message_id": str(uuid.uuid4()), "text": text})
        return answer["event"]["seq"] if answer and "event" in answer else answer.get("seq")

    def end(self, conversation_id):
        status, _ = self.api.exchange("POST", f"/v1/conversations/{conversation_id}/end")
        return status
