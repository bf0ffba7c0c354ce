"""Helpers for the desk's browser suite: a real parleyd, the real `parley chat` CLI, Chromium."""
