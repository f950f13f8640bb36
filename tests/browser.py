"""Open a page in headless Chromium and report what a person would have seen (tests and docs).

Chromium is driven over the DevTools protocol on a pipe
(``--remote-debugging-pipe``: JSON messages ending in a NUL byte, commands on
the browser's fd 3, answers and events on its fd 4), so nothing beyond the
standard library and the browser is needed.  :func:`open_page` loads a file,
collects every console message, uncaught exception, browser log entry and
network request, runs one JavaScript expression in the page, and takes a PNG
screenshot.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import io
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class PageVisit:
    """What loading the page produced."""

    console: list[str] = field(default_factory=list)  # console output, any level
    errors: list[str] = field(default_factory=list)  # console errors, exceptions, error logs
    requests: list[str] = field(default_factory=list)  # every URL the page asked for
    value: Any = None  # the expression's value
    screenshot: bytes = b""  # PNG


class _Pipe:
    """The DevTools connection: numbered commands, answers matched by id, events queued."""

    def __init__(self, write_fd: int, read_fd: int) -> None:
        self._write_fd = write_fd
        self._read_fd = read_fd
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no answer from Chromium")
            ready, _, _ = select.select([self._read_fd], [], [], remaining)
            if ready:
                chunk = os.read(self._read_fd, 1 << 20)
                if not chunk:
                    raise ConnectionError("Chromium closed its DevTools pipe")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        data: dict[str, Any] = json.loads(message)
        return data

    def call(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: str | None = None,
        timeout: float = 60.0,
    ) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._write_fd, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            data = self._read_message(deadline)
            if data.get("id") == self._next_id:
                if "error" in data:
                    raise RuntimeError(f"{method}: {data['error']}")
                result: dict[str, Any] = data.get("result", {})
                return result
            if "method" in data:
                self.events.append(data)

    def wait_for(self, method: str, *, timeout: float = 60.0) -> dict[str, Any]:
        for event in self.events:
            if event["method"] == method:
                return event
        deadline = time.monotonic() + timeout
        while True:
            data = self._read_message(deadline)
            if "method" in data:
                self.events.append(data)
                if data["method"] == method:
                    return data


def _describe_console(params: dict[str, Any]) -> str:
    parts = []
    for arg in params.get("args", []):
        parts.append(str(arg.get("value", arg.get("description", arg.get("type")))))
    return f"console.{params.get('type')}: {' '.join(parts)}"


def _collect(events: list[dict[str, Any]], visit: PageVisit) -> None:
    for event in events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = _describe_console(params)
            visit.console.append(text)
            if params.get("type") in ("error", "assert"):
                visit.errors.append(text)
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            exception = details.get("exception", {}).get("description", details.get("text"))
            visit.errors.append(f"exception: {exception}")
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            text = f"log {entry.get('level')}: {entry.get('text')} {entry.get('url', '')}"
            visit.console.append(text)
            if entry.get("level") == "error":
                visit.errors.append(text)
        elif method == "Network.requestWillBeSent":
            visit.requests.append(params.get("request", {}).get("url", ""))
        elif method == "Network.loadingFailed":
            visit.errors.append(f"loading failed: {params.get('errorText')}")


def _high_pipe() -> tuple[int, int]:
    """A pipe whose ends are above fd 9: putting them on 3 and 4 cannot close one of them."""
    ends = []
    for fd in os.pipe():
        ends.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
        os.close(fd)
    return ends[0], ends[1]


def open_page(
    path: Path,
    expression: str,
    *,
    width: int = 1280,
    height: int = 900,
    full_page: bool = True,
    chromium: str | None = None,
    timeout: float = 90.0,
) -> PageVisit:
    """Load ``path`` in headless Chromium, evaluate ``expression``, take a screenshot."""
    browser = chromium or find_chromium()
    if browser is None:
        raise FileNotFoundError("chromium is not installed")
    to_browser_read, to_browser_write = _high_pipe()
    from_browser_read, from_browser_write = _high_pipe()
    with tempfile.TemporaryDirectory(prefix="arena-chromium-") as profile:
        arguments = [
            browser,
            "--headless",
            "--remote-debugging-pipe",
            "--no-sandbox",  # CI containers run as root
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--user-data-dir={profile}",
            "about:blank",
        ]

        # Chromium reads commands on fd 3 and writes on fd 4: bash puts our pipe
        # ends there (sh cannot name fds above 9) and closes the originals.
        script = 'exec 3<&"$1" 4>&"$2"; eval "exec $1<&- $2>&-"; shift 2; exec "$@"'
        process = subprocess.Popen(
            [
                "bash",
                "-c",
                script,
                "bash",
                str(to_browser_read),
                str(from_browser_write),
                *arguments,
            ],
            pass_fds=(to_browser_read, from_browser_write),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        pipe = _Pipe(to_browser_write, from_browser_read)
        visit = PageVisit()
        try:
            target = pipe.call("Target.createTarget", {"url": "about:blank"}, timeout=timeout)
            attached = pipe.call(
                "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}
            )
            session = attached["sessionId"]
            for domain in ("Runtime", "Log", "Network", "Page"):
                pipe.call(f"{domain}.enable", session=session)
            pipe.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                session=session,
            )
            pipe.events.clear()
            pipe.call("Page.navigate", {"url": path.resolve().as_uri()}, session=session)
            pipe.wait_for("Page.loadEventFired", timeout=timeout)
            pipe.call(
                "Runtime.evaluate",
                {"expression": "document.fonts.ready.then(() => true)", "awaitPromise": True},
                session=session,
            )
            answer = pipe.call(
                "Runtime.evaluate",
                {"expression": expression, "returnByValue": True, "awaitPromise": True},
                session=session,
            )
            if "exceptionDetails" in answer:
                raise RuntimeError(f"the expression failed: {answer['exceptionDetails']}")
            visit.value = answer["result"].get("value")
            shot: dict[str, Any] = {"format": "png"}
            if full_page:
                metrics = pipe.call("Page.getLayoutMetrics", session=session)
                size = metrics["cssContentSize"]
                shot["captureBeyondViewport"] = True
                shot["clip"] = {
                    "x": 0,
                    "y": 0,
                    "width": size["width"],
                    "height": size["height"],
                    "scale": 1,
                }
            image = pipe.call("Page.captureScreenshot", shot, session=session)
            visit.screenshot = base64.b64decode(image["data"])
            _collect(pipe.events, visit)
            with contextlib.suppress(ConnectionError, TimeoutError):
                pipe.call("Browser.close", timeout=10)
        finally:
            os.close(to_browser_write)
            os.close(from_browser_read)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    return visit


def pixel_spread(
    png: bytes, box: tuple[float, float, float, float] | None = None
) -> tuple[int, int, float]:
    """Width, height and standard deviation of the grey levels of a PNG (0: blank).

    ``box`` (left, top, width, height, in pixels) looks at that part only.
    Pillow comes with matplotlib, which the report needs anyway.
    """
    from PIL import Image, ImageStat

    with Image.open(io.BytesIO(png)) as image:
        grey = image.convert("L")
        if box is not None:
            left, top, width, height = box
            grey = grey.crop((round(left), round(top), round(left + width), round(top + height)))
        return grey.width, grey.height, float(ImageStat.Stat(grey).stddev[0])
