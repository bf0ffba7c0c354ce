"""Helpers of the chat page's browser suite. The server, HTTP and browser plumbing is the desk suite's
(Tests/Desk/harness), imported, not copied."""
