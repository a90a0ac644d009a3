"""A session of ``streamlit run app.py`` without a browser: a WebSocket that speaks Streamlit's
protocol.

Two users: the server's own preparation (:mod:`ui.warm`, which walks the class pages over this
protocol on localhost), and the benchmarks' simulated users (``benchmarks/bench_load.py``,
``benchmarks/prepare_class.py``).

A browser and the server talk in protobuf messages, the classes of ``streamlit.proto``: the
browser sends a ``BackMsg`` (a ``rerun_script`` with its ``ClientState``: the query string, the
page and the widget values that changed; or a ``file_urls_request`` before an upload), the
server answers with ``ForwardMsg``\\ s (``new_session`` when a run starts, a ``delta`` per element
drawn, ``page_info_changed`` when the page rewrites its URL, ``script_finished`` when the run
ends). :class:`StreamlitClient` plays the browser's side without a browser:

* it connects as the page does: ``GET /_stcore/health`` (which sets the XSRF cookie), then the
  WebSocket ``/_stcore/stream`` with the subprotocols ``streamlit`` and the cookie's token;
  it keeps every cookie it is given, as a browser does, and sends them with the WebSocket and
  each HTTP request (behind a proxy with sticky sessions, ``scripts/serve_class.py``, the
  proxy's cookie sends them all to the process that holds the session);
* it follows the page as the browser does: the page's script hash from ``st.navigation``'s
  ``navigation`` message and the URL's query string from ``page_info_changed``, both sent back
  with every rerun;
* it reads every widget from the deltas (its ``id``, label, options, current value and the
  fragment it was drawn in) and changes one by sending that widget's new ``WidgetState`` (a
  fragment's widget reruns the fragment alone, as the browser does);
* it uploads a file as ``st.file_uploader`` does: a ``file_urls_request``, an HTTP PUT of the
  bytes to the URL the server answers with, then a rerun with the uploader's new state;
* it times each request to the ``script_finished`` that ends it (a run that stops early for a
  rerun, such as ``st.rerun()`` after a Publish, is followed to the end of the chain);
* it checks every message it receives for markers (:class:`MarkerBoard`): a marker that
  another user uploaded is a *crossed session*;
* an ``exception`` element, a compile error, a closed socket or a request without its
  ``script_finished`` in time raises :class:`ProtocolError`.

These messages are Streamlit's private protocol, which may change in any release: the client
was checked against the releases :data:`STREAMLIT_CHECKED` names (``requirements.txt`` pins the
same range), and :func:`check_streamlit` refuses any other, installed here or running the
server (its ``new_session`` names its version), with a message naming both.

Widgets it has not changed keep the values the server holds for them (the browser resends
every value; the server keeps a value that a rerun does not mention, so the runs are the same).
The client blocks on its socket; under gevent (Locust) it yields to the other users.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

import requests
import websocket
from packaging.specifiers import SpecifierSet
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.Common_pb2 import FileURLs, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

#: The Streamlit releases whose WebSocket protocol this client was checked against (the same
#: range as ``requirements.txt``'s pin; widen both only after checking the protocol again).
STREAMLIT_CHECKED = ">=1.67,<1.68"
XSRF_COOKIE = "_streamlit_xsrf"
#: ``script_finished`` statuses that end a request (a run stopped early for a rerun does not).
DONE = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
_MARKER = re.compile(rb"LOAD[0-9A-F]{12}")
_QUOTED = 60  # characters of an exception's message quoted in an error


class ProtocolError(RuntimeError):
    """The server did not answer as a page expects: an exception on the page, a compile
    error, no ``script_finished`` in time, a closed socket, a refused upload."""


class ConnectionLost(ProtocolError):
    """The WebSocket closed under the session (the server stopped, or dropped a client that
    answered no keep-alive ping for a while): a new session may succeed."""


class StreamlitVersionError(ProtocolError):
    """A Streamlit release outside :data:`STREAMLIT_CHECKED`, whose protocol this client was
    not checked against."""


def check_streamlit(found: str | None = None, *, where: str = "is installed") -> str:
    """``found`` (by default the installed Streamlit's version), when this client was checked
    against its protocol (:data:`STREAMLIT_CHECKED`).

    Raises
    ------
    StreamlitVersionError
        For another release, naming it and the checked range.

    Examples
    --------
    >>> check_streamlit("1.67.2")
    '1.67.2'
    >>> check_streamlit("1.68.0", where="runs the server")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ui.protocol.StreamlitVersionError: Streamlit 1.68.0 runs the server, but ...
    """
    found = version("streamlit") if found is None else found
    if SpecifierSet(STREAMLIT_CHECKED).contains(found, prereleases=True):
        return found
    raise StreamlitVersionError(
        f"Streamlit {found} {where}, but ui/protocol.py speaks Streamlit's "
        f"private WebSocket protocol as checked against streamlit{STREAMLIT_CHECKED} only. "
        "Install the checked release (bash scripts/install.sh installs requirements.txt's "
        f"pin), or check the protocol against {found} and widen STREAMLIT_CHECKED and "
        "requirements.txt together.")


class MarkerBoard:
    """Every uploading user's marker (random, made at run time), shared by all users of a run.

    Examples
    --------
    >>> board = MarkerBoard()
    >>> mine, theirs = board.new(), board.new()
    >>> board.found(f"col{theirs},x".encode()) == {theirs}
    True
    """

    def __init__(self) -> None:
        self._markers: set[str] = set()

    def new(self) -> str:
        """A fresh marker: ``LOAD`` and 12 random hexadecimal digits."""
        marker = f"LOAD{uuid.uuid4().hex[:12].upper()}"
        self._markers.add(marker)
        return marker

    def found(self, data: bytes) -> set[str]:
        """The known markers that ``data`` contains."""
        return {m.decode() for m in _MARKER.findall(data)} & self._markers


@dataclass
class Widget:
    """A widget as the last delta that drew it describes it.

    Attributes
    ----------
    id : str
        The id the server gave it (``$$ID-<hash>-<key>``).
    kind : str
        Its ``Element`` field: ``"slider"``, ``"button_group"``, ``"button"``, ...
    label : str
    fragment_id : str
        The fragment it was drawn in ("" outside any fragment).
    element : Any
        Its protobuf (``Slider``, ``ButtonGroup``, ``Button``, ``FileUploader``, ...).
    """

    id: str
    kind: str
    label: str
    fragment_id: str
    element: Any

    @property
    def options(self) -> list[str]:
        """A select slider's or a button group's options, as the page shows them."""
        if self.kind == "button_group":
            return [option.content for option in self.element.options]
        return list(self.element.options)

    def server_value(self) -> Any:
        """The value the server set (``set_value``) or its default: option strings for a
        select slider or a button group, a float for a number input; None for other kinds."""
        element = self.element
        if self.kind == "number_input":
            return element.value if element.set_value else element.default
        if self.kind == "button_group":
            chosen = list(element.raw_values) if element.set_value else []
            return chosen or [self.options[i] for i in element.default]
        if self.kind == "slider" and element.options:
            if element.set_value and element.raw_value:
                return list(element.raw_value)
            return [element.options[int(i)] for i in element.default]
        return None


@dataclass
class Run:
    """One request and the messages that answered it.

    Attributes
    ----------
    seconds : float
        From sending the request to the ``script_finished`` that ended it.
    messages, nbytes : int
        ``ForwardMsg``\\ s received and their bytes.
    elements : list of (str, str)
        The elements drawn, in order: each one's kind (``"progress"``, ``"slider"``, ...) and
        its text or label ("" for none).
    """

    seconds: float
    messages: int = 0
    nbytes: int = 0
    elements: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class StreamlitClient:
    """One user's session with the server at ``base_url`` (``http://127.0.0.1:PORT``).

    Parameters
    ----------
    base_url : str
    board : MarkerBoard
        The run's markers, checked in every message received.
    marker : str, optional
        This user's own marker (an uploading user's), the only one it may receive.
    timeout : float, default=300.0
        Seconds a request may wait for its ``script_finished`` before it is an error.

    Attributes
    ----------
    session_id : str
        The server's id of the session (``new_session``).
    page_script_hash, query_string : str
        The page that runs and its URL's query string, as the last run left them.
    widgets : dict
        The widgets drawn, by kind and label, the last drawn last.
    crossed : set of str
        Other users' markers that this user received (none, unless sessions cross).
    own_marker_seen : bool
        Whether this user received its own marker.
    """

    base_url: str
    board: MarkerBoard
    marker: str | None = None
    timeout: float = 300.0
    session_id: str = field(default="", init=False)
    page_script_hash: str = field(default="", init=False)
    query_string: str = field(default="", init=False)
    widgets: dict[tuple[str, str], Widget] = field(default_factory=dict, init=False)
    crossed: set[str] = field(default_factory=set, init=False)
    own_marker_seen: bool = field(default=False, init=False)
    _chosen: dict[str, Any] = field(default_factory=dict, init=False)  # widget id -> value
    _xsrf: str = field(default="", init=False)
    _http: requests.Session = field(default_factory=requests.Session, init=False)
    _ws: websocket.WebSocket | None = field(default=None, init=False)

    def connect(self) -> None:
        """Open the session as the page does: the health check (its XSRF cookie), then the
        WebSocket with the cookie's token.

        Raises
        ------
        StreamlitVersionError
            When the installed Streamlit (whose message classes it uses) is not a checked one.
        """
        check_streamlit()
        health = self._http.get(f"{self.base_url}/_stcore/health", timeout=30)
        health.raise_for_status()
        self._xsrf = self._http.cookies.get(XSRF_COOKIE, "")
        ws_url = self.base_url.replace("http://", "ws://", 1) + "/_stcore/stream"
        try:
            self._ws = websocket.create_connection(
                ws_url, timeout=self.timeout, subprotocols=["streamlit", self._xsrf],
                header=[f"Cookie: {self.cookie_header()}"], origin=self.base_url)
        except websocket.WebSocketException as exc:
            raise ProtocolError(f"the WebSocket was refused: {exc!r}") from exc

    def cookie_header(self) -> str:
        """The cookies this user was given (the XSRF token, a proxy's), as a ``Cookie`` header."""
        return "; ".join(f"{name}={value}" for name, value in self._http.cookies.items())

    def close(self) -> None:
        """Close the WebSocket: the server disconnects the session (and forgets it after
        ``server.disconnectedSessionTTL``, 120 s by default)."""
        if self._ws is not None:
            with suppress(websocket.WebSocketException, OSError):
                self._ws.close()
            self._ws = None
        self._http.close()

    def open_page(self, page: str, query_string: str = "") -> Run:
        """Open ``page`` (its URL path, "" for the home page) with a link's query string."""
        self.query_string = query_string
        state = ClientState(query_string=query_string, page_name=page)
        return self._rerun(state)

    def drawn(self, kind: str, label: str) -> Widget | None:
        """The last drawn widget of ``kind`` whose label starts with ``label``, if any."""
        for (widget_kind, widget_label), widget in reversed(self.widgets.items()):
            if widget_kind == kind and widget_label.startswith(label):
                return widget
        return None

    def find(self, kind: str, label: str) -> Widget:
        """:meth:`drawn`, for a widget the page must have drawn.

        Raises
        ------
        ProtocolError
            When the page has drawn no such widget.
        """
        widget = self.drawn(kind, label)
        if widget is None:
            raise ProtocolError(f"the page drew no {kind} labelled {label!r}")
        return widget

    def value(self, widget: Widget) -> Any:
        """The widget's value as the page shows it: the server's when it set one, else the
        last one this user chose, else the default."""
        if widget.element.set_value or widget.id not in self._chosen:
            return widget.server_value()
        return self._chosen[widget.id]

    def choose(self, widget: Widget, values: list[str]) -> Run:
        """Set a select slider or a button group to ``values`` (option strings)."""
        self._chosen[widget.id] = list(values)
        state = WidgetState(id=widget.id)
        state.string_array_value.data.extend(values)
        return self._send_widget(widget, state)

    def enter(self, widget: Widget, number: float) -> Run:
        """Type ``number`` into a number input."""
        self._chosen[widget.id] = number
        return self._send_widget(widget, WidgetState(id=widget.id, double_value=number))

    def press(self, widget: Widget) -> Run:
        """Press a button."""
        return self._send_widget(widget, WidgetState(id=widget.id, trigger_value=True))

    def upload(self, widget: Widget, name: str, data: bytes) -> Run:
        """Upload ``data`` as the file ``name`` through ``st.file_uploader`` ``widget``: the
        upload URL from the server, an HTTP PUT of the bytes, then the rerun that reads them.
        The bytes stay in memory."""
        start = time.perf_counter()
        request_id = uuid.uuid4().hex
        message = BackMsg()
        message.file_urls_request.request_id = request_id
        message.file_urls_request.file_names.append(name)
        message.file_urls_request.session_id = self.session_id
        self._send(message)
        urls = self._file_urls(request_id)
        response = self._http.put(
            self.base_url + urls.upload_url, files={"file": (name, data, "text/csv")},
            headers={"X-Xsrftoken": self._xsrf}, timeout=self.timeout)
        if response.status_code != 204:
            raise ProtocolError(f"the upload was refused: HTTP {response.status_code}")
        info = UploadedFileInfo(name=name, size=len(data), file_id=urls.file_id,
                                file_urls=FileURLs(file_id=urls.file_id,
                                                   upload_url=urls.upload_url,
                                                   delete_url=urls.delete_url))
        state = WidgetState(id=widget.id)
        state.file_uploader_state_value.uploaded_file_info.append(info)
        run = self._send_widget(widget, state)
        run.seconds = time.perf_counter() - start
        return run

    def _send_widget(self, widget: Widget, state: WidgetState) -> Run:
        client_state = ClientState(query_string=self.query_string,
                                   page_script_hash=self.page_script_hash,
                                   fragment_id=widget.fragment_id)
        client_state.widget_states.widgets.append(state)
        return self._rerun(client_state)

    def _rerun(self, state: ClientState) -> Run:
        if not state.fragment_id:  # a full run redraws every widget
            self.widgets.clear()
        message = BackMsg()
        message.rerun_script.CopyFrom(state)
        start = time.perf_counter()
        self._send(message)
        run = Run(0.0)
        while True:
            msg = self._receive(run, start)
            if msg.WhichOneof("type") == "script_finished":
                if msg.script_finished == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                    raise ProtocolError("the page failed to compile")
                if msg.script_finished in DONE:
                    run.seconds = time.perf_counter() - start
                    return run

    def _file_urls(self, request_id: str) -> FileURLs:
        run = Run(0.0)
        start = time.perf_counter()
        while True:
            msg = self._receive(run, start)
            if msg.WhichOneof("type") != "file_urls_response":
                continue
            response = msg.file_urls_response
            if response.response_id != request_id:
                continue
            if response.error_msg or not response.file_urls:
                raise ProtocolError(f"no upload URL: {response.error_msg or 'none given'}")
            return response.file_urls[0]

    def _send(self, message: BackMsg) -> None:
        if self._ws is None:
            raise ProtocolError("the session is not connected")
        try:
            self._ws.send_binary(message.SerializeToString())
        except (websocket.WebSocketException, OSError) as exc:
            raise ConnectionLost(f"the WebSocket failed: {exc!r}") from exc

    def _receive(self, run: Run, start: float) -> ForwardMsg:
        """The next message, read into this client's state (widgets, page, markers)."""
        remaining = self.timeout - (time.perf_counter() - start)
        if remaining <= 0 or self._ws is None:
            raise ProtocolError(f"no answer within {self.timeout:g} s")
        self._ws.settimeout(remaining)
        try:
            raw = self._ws.recv()
        except websocket.WebSocketTimeoutException as exc:
            raise ProtocolError(f"no answer within {self.timeout:g} s") from exc
        except (websocket.WebSocketException, OSError) as exc:
            raise ConnectionLost(f"the WebSocket failed: {exc!r}") from exc
        if isinstance(raw, str):
            raise ProtocolError("the server sent a text frame")
        run.messages += 1
        run.nbytes += len(raw)
        self._check_markers(raw)
        msg = ForwardMsg()
        msg.ParseFromString(raw)
        self._read(msg)
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            kind = msg.delta.new_element.WhichOneof("type")
            proto = getattr(msg.delta.new_element, kind)
            run.elements.append((kind, getattr(proto, "text", "") or getattr(proto, "label", "")))
        return msg

    def _check_markers(self, raw: bytes) -> None:
        found = self.board.found(raw)
        if self.marker in found:
            self.own_marker_seen = True
        self.crossed |= found - {self.marker}

    def _read(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            initialize = msg.new_session.initialize
            server = initialize.environment_info.streamlit_version
            if server:
                check_streamlit(server, where="runs the server")
            self.session_id = initialize.session_id
        elif kind == "navigation":  # st.navigation names the page that runs
            self.page_script_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query_string = msg.page_info_changed.query_string
        elif kind == "session_event" and msg.session_event.HasField(
                "script_compilation_exception"):
            raise ProtocolError("the page failed to compile")
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            self._read_element(msg.delta)

    def _read_element(self, delta: Any) -> None:
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind == "exception":
            error = element.exception  # its message: the app's (redacted) text, shortened
            raise ProtocolError(f"the page shows an exception: {error.type} "
                                f"{error.message[:_QUOTED]!r}")
        proto = getattr(element, kind)
        widget_id, label = getattr(proto, "id", ""), getattr(proto, "label", "")
        if widget_id.startswith("$$ID-"):
            self.widgets.pop((kind, label), None)  # the latest drawn comes last
            self.widgets[(kind, label)] = Widget(widget_id, kind, label, delta.fragment_id, proto)


#: The pages a class uses, each with an ε slider in a fragment, a "View" control with a Publish
#: view, and a Publish button.
CLASS_PAGES = ("importance", "subset", "perturbation", "masking")
#: The label of every page's view chooser, its Publish view and its ε slider.
VIEW_LABEL = "View"
PUBLISH_VIEW = "Publish"
EPSILON_LABEL = "Privacy budget ε"


def walk(base_url: str, pages: Sequence[str], *, timeout: float = 600.0,
         report: Callable[[str, str, float], None] | None = None,
         opened: Callable[[str, float], None] | None = None,
         pause: Callable[[], None] | None = None) -> float:
    """Prepare a server for a class: open each of ``pages``, show each of its views (Publish
    too, without pressing it) and move its ε slider across every value in each, so that the
    cache every session shares holds those results and their figures.

    The pages' first views come first (what a class opening the pages asks for at once), then
    every view of each page at every ε. Nothing is published and no budget is spent.

    Parameters
    ----------
    base_url : str
        The server (``http://127.0.0.1:PORT``).
    pages : sequence of str
        The pages' URL paths (:data:`CLASS_PAGES`).
    timeout : float, default=600.0
        Seconds one step may take.
    report : callable(page, view, seconds), optional
        Called after each view (at every ε).
    opened : callable(page, seconds), optional
        Called after each page's first view.
    pause : callable(), optional
        Called before each step (a rerun); it may block, to hold the walk while the machine
        is busy (:mod:`ui.warm`).

    Returns
    -------
    float
        The seconds the walk took.
    """
    start = time.perf_counter()
    pause = pause or (lambda: None)
    client = StreamlitClient(base_url, MarkerBoard(), timeout=timeout)
    client.connect()
    try:
        for page in pages:  # the first views, as a class opens them
            pause()
            run = client.open_page(page)
            if opened is not None:
                opened(page, run.seconds)
        for page in pages:
            pause()
            client.open_page(page)
            views = client.find("button_group", VIEW_LABEL)
            for view in views.options:
                began = time.perf_counter()
                pause()
                client.choose(views, [view])
                slider = client.find("slider", EPSILON_LABEL)
                for option in slider.options:
                    pause()
                    client.choose(slider, [option])
                if report is not None:
                    report(page, view, time.perf_counter() - began)
    finally:
        client.close()
    return time.perf_counter() - start
