# SPDX-License-Identifier: LGPL-2.1-or-later
"""A bare D-Bus client on a raw socket, for what the libraries refuse to
send: a method call whose string argument is not valid UTF-8.  The bus
itself must refuse such a message (dbus-daemon drops the connection) before
it reaches idlepolicyd.  Little-endian marshalling of the few header fields
a method call needs; nothing else."""

import os
import socket
import struct


def _pad(buf, n):
    return buf + b'\0' * (-len(buf) % n)


def _field(buf, code, sig, value):
    """Appends one header field (a struct (yv), 8-aligned) to buf, whose
    offsets are those of the whole message."""
    buf = _pad(buf, 8) + bytes([code, len(sig)]) + sig.encode() + b'\0'
    if sig in ('s', 'o'):
        return _pad(buf, 4) + struct.pack('<I', len(value)) + value + b'\0'
    return buf + bytes([len(value)]) + value + b'\0'          # 'g'


def message(serial, path, iface, member, dest, sig=b'', body=b''):
    """Returns a marshalled method call (all arguments bytes)."""
    fields = ((1, 'o', path), (2, 's', iface), (3, 's', member), (6, 's', dest))
    fields += ((8, 'g', sig),) if sig else ()
    start = 16                                  # the fields array's content starts here
    f = b''
    for code, t, v in fields:
        f = _field(b'\0' * start + f, code, t, v)[start:]
    head = struct.pack('<cBBBIII', b'l', 1, 0, 1, len(body), serial, len(f)) + f
    return _pad(head, 8) + body


def string(raw, offset=0):
    """A marshalled string at body offset (4-aligned): length, bytes, NUL."""
    return b'\0' * (-offset % 4) + struct.pack('<I', len(raw)) + raw + b'\0'


def send_call(socket_path, path, iface, member, dest, sig, body, timeout=3.0):
    """Authenticates (EXTERNAL), says Hello and sends one call.  Returns
    'disconnected' when the bus dropped the connection, 'answered' when it
    stayed open until timeout, or 'auth failed'."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(socket_path)
        s.sendall(b'\0AUTH EXTERNAL ' + str(os.geteuid()).encode().hex().encode() + b'\r\n')
        if not s.recv(4096).startswith(b'OK'):
            return 'auth failed'
        s.sendall(b'BEGIN\r\n')
        s.sendall(message(1, b'/org/freedesktop/DBus', b'org.freedesktop.DBus', b'Hello', b'org.freedesktop.DBus'))
        s.sendall(message(2, path, iface, member, dest, sig, body))
        while s.recv(65536):
            pass
        return 'disconnected'
    except socket.timeout:
        return 'answered'
    except ConnectionResetError:
        return 'disconnected'
    finally:
        s.close()
