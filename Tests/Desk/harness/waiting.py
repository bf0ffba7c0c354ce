"""Waiting for a condition (never for a fixed time)."""
import time


class Timeout(AssertionError):
    pass


def wait_until(condition, timeout=15.0, interval=0.05, message="condition"):
    """Polls `condition` until it returns something truthy, and returns that; fails after `timeout` s."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = condition()
            if value:
                return value
        except AssertionError:
            raise
        except Exception as error:  # the thing polled may not exist yet
            last_error = error
        if time.monotonic() > deadline:
            detail = f" (last error: {last_error!r})" if last_error else ""
            raise Timeout(f"timed out after {timeout:.0f} s waiting for {message}{detail}")
        time.sleep(interval)
