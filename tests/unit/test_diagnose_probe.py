"""Which bootstrap addresses refuse a connection (kafka_groups/access/diagnose.py), with real
local sockets: a listening one, and ports nothing listens on."""

from __future__ import annotations

import socket

from kafka_groups.access.diagnose import listening_address, refused_addresses


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_every_address_refusing_is_named_and_one_listening_clears_them():
    dead = [f"127.0.0.1:{_closed_port()}", f"127.0.0.1:{_closed_port()}"]
    assert refused_addresses(",".join(dead)) == dead
    assert refused_addresses(" , ".join(dead) + " ,") == dead  # blanks between commas are no address
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        live = f"127.0.0.1:{server.getsockname()[1]}"
        assert refused_addresses(",".join([*dead, live])) == []
        assert listening_address(",".join([*dead, live])) == live
    assert listening_address(",".join(dead)) == dead[0]


def test_an_address_that_cannot_be_probed_is_not_called_refused():
    assert refused_addresses(f"127.0.0.1:{_closed_port()},no-port-here") == []
    assert refused_addresses("") == []
