"""Requests whose answer is decoded by a function of ours instead of kafka-python's classes.

kafka-python decodes an answer into one object per repeated structure: an OffsetFetch of
30,000 partitions becomes 30,000 partition objects, read once and dropped, and building them is
most of the time the answer costs (about 0.13 s on this project's machine). A request wrapped
in :class:`Decoded` goes out exactly as the layer encodes it (the wrapper changes nothing of
the request), and its answer's bytes, after the response header, go to ``decode(data,
version)``, which returns what the caller reads (compact tables, arrays), never the layer's
objects.

How the layer is met: its parser queues ``request.header`` when the request is sent and, when
the answer comes, asks that header for the response class, whose ``parse_header`` and
``decode`` it calls on the answer's buffer; the connection then reads ``throttle_time_ms`` of
what ``decode`` returned. The wrapper hands the parser a header whose response class is ours;
everything else is the request's own.
"""

from __future__ import annotations

import struct
import sys
from array import array
from collections.abc import Callable
from typing import Any

Decoder = Callable[[bytes, int], Any]

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")


class Decoded:
    """``request``, its answer decoded by ``decode(data, version)`` (the bytes after the
    response header, and the version the request went out in). ``body``: the request's body
    already encoded for the version set on it (``API_VERSION``), sent in place of the layer's
    encoding of its fields (a unit test holds each such encoder to the layer's bytes)."""

    __slots__ = ("_body", "_decode", "_header", "_request")

    def __init__(self, request: Any, decode: Decoder, body: bytes | None = None) -> None:
        self._request = request
        self._decode = decode
        self._body = body
        self._header: _Header | None = None

    @property
    def API_VERSION(self) -> Any:
        return self._request.API_VERSION

    @API_VERSION.setter
    def API_VERSION(self, version: int) -> None:
        self._request.API_VERSION = version

    @property
    def header(self) -> Any:
        return self._header

    @property
    def request(self) -> Any:
        """The wrapped request."""
        return self._request

    def with_header(self, correlation_id: int = 0, client_id: str = "kafka-python") -> None:
        self._request.with_header(correlation_id=correlation_id, client_id=client_id)
        self._header = _Header(self._request.header, self._decode)

    def encode(self, *args: Any, **kwargs: Any) -> Any:
        if self._body is None:
            return self._request.encode(*args, **kwargs)
        return self._encoded(header=kwargs.get("header", False), framed=kwargs.get("framed", False))

    def _encoded(self, header: bool, framed: bool) -> bytes:
        request = self._request
        payload = self._body or b""
        if header:
            flexible = request.flexible_version_q(request.API_VERSION)
            payload = bytes(request.encode_header(flexible=flexible)) + payload
        return _I32.pack(len(payload)) + payload if framed else payload

    def expect_response(self) -> bool:
        return bool(self._request.expect_response())

    def __getattr__(self, name: str) -> Any:  # what else the layer reads of a request
        return getattr(self._request, name)

    def __repr__(self) -> str:
        return repr(self._request)


class _Header:
    """The request's header, whose response class is :class:`_Answer`."""

    __slots__ = ("_decode", "_header")

    def __init__(self, header: Any, decode: Decoder) -> None:
        self._header = header
        self._decode = decode

    @property
    def correlation_id(self) -> int:
        return int(self._header.correlation_id)

    def get_response_class(self) -> Any:
        real = self._header.get_response_class()
        return None if real is None else _Answer(real, self._header.request_api_version, self._decode)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._header, name)


class _Answer:
    """What the parser takes for the response class: the real class's header, our decoding."""

    __slots__ = ("_decode", "_real", "_version")

    def __init__(self, real: Any, version: int, decode: Decoder) -> None:
        self._real = real
        self._version = version
        self._decode = decode

    def parse_header(self, data: Any) -> Any:
        return self._real.parse_header(data)

    def decode(self, data: Any) -> Any:
        return self._decode(data.read(), self._version)

    def __repr__(self) -> str:
        return f"{self._real!r} (decoded by {getattr(self._decode, '__qualname__', self._decode)})"


# -- writing a request's bytes ----------------------------------------------------------------
def length_bytes(count: int, flexible: bool) -> bytes:
    """An array's length: an unsigned varint of count + 1 (flexible versions), else an int32."""
    return uvarint_bytes(count + 1) if flexible else _I32.pack(count)


def string_bytes(text: str | None, flexible: bool) -> bytes:
    if text is None:
        return b"\x00" if flexible else _I16.pack(-1)
    raw = text.encode("utf-8")
    return (uvarint_bytes(len(raw) + 1) if flexible else _I16.pack(len(raw))) + raw


def uvarint_bytes(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


# -- reading an answer's bytes ----------------------------------------------------------------
def uvarint(data: memoryview | bytes, pos: int) -> tuple[int, int]:
    byte = data[pos]
    pos += 1
    if byte < 0x80:
        return byte, pos
    value, shift = byte & 0x7F, 7
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise ValueError("a varint longer than 64 bits")


def array_length(data: memoryview | bytes, pos: int, flexible: bool) -> tuple[int, int]:
    """An array's length (-1: null)."""
    if flexible:
        length, pos = uvarint(data, pos)
        return length - 1, pos
    return _I32.unpack_from(data, pos)[0], pos + 4


def string(data: memoryview | bytes, pos: int, flexible: bool) -> tuple[str | None, int]:
    if flexible:
        length = data[pos]
        if length < 0x80:  # nearly every string: a one-byte length
            pos += 1
        else:
            length, pos = uvarint(data, pos)
        length -= 1
    else:
        length = _I16.unpack_from(data, pos)[0]
        pos += 2
    if length < 0:
        return None, pos
    end = pos + length
    if end > len(data):
        raise IndexError("the answer ends inside a string")
    return str(data[pos:end], "utf-8"), end


def skip_tags(data: memoryview | bytes, pos: int) -> int:
    count, pos = uvarint(data, pos)
    for _ in range(count):
        _tag, pos = uvarint(data, pos)
        size, pos = uvarint(data, pos)
        pos += size
    if pos > len(data):
        raise IndexError("the answer ends inside a tagged field")
    return pos


def column(raw: bytes, size: int, at: int, width: int, typecode: str) -> array[int]:
    """One big-endian field of every record of ``size`` bytes in ``raw`` (at byte ``at``, of
    ``width`` bytes) as an array, gathered byte by byte with strided slices (all in C)."""
    count = len(raw) // size
    gathered = bytearray(count * width)
    for byte in range(width):
        gathered[byte::width] = raw[at + byte :: size]
    column = array(typecode)
    column.frombytes(gathered)
    if sys.byteorder == "little":
        column.byteswap()
    return column
