"""The ``command`` of a test MCP server started through zygote.py (see there): hands this process's stdin,
stdout, stderr, environment and folder to a forked server and waits until that server ends.

    python -S launch.py SOCKET
"""

import json
import os
import socket
import sys

conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
conn.connect(sys.argv[1])
body = json.dumps({"env": dict(os.environ), "cwd": os.getcwd()}).encode()
socket.send_fds(conn, [len(body).to_bytes(4, "big") + body], [0, 1, 2])
devnull = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):  # the server has them now; holding the pipes open here would hide its exit
    os.dup2(devnull, fd)
conn.recv(1)  # returns when the server ends (or is ended with this process's group)
