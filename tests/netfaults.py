"""Network faults for the loopback servers of the S3 and HTTP source tests."""
from __future__ import annotations

import socket
import struct


def drop_mid_body(conn: socket.socket) -> None:
    """End a response mid-body the same way every time: FIN after the bytes sent (the client
    receives all of them, then the connection ends short of Content-Length), wait for the client
    to hang up, then abort with RST.  An RST sent at once races the client's reads: Linux discards
    bytes not yet read when the RST arrives, so how much the client got (and whether its re-open
    is a ranged GET) depended on scheduling."""
    conn.shutdown(socket.SHUT_WR)
    conn.settimeout(10)
    try:
        while conn.recv(65536):
            pass
    except OSError:
        pass
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

