#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""notify-listen: a service manager's notification socket, for tests.

Usage: notify-listen.py [--signal-on KEY=VALUE:SIGNAL]... [--guard SECONDS] -- COMMAND [ARG]...

Binds a datagram socket in a fresh directory, runs COMMAND with NOTIFY_SOCKET naming it (as
systemd does for Type=notify), and prints on stdout "child PID", then each notification as
one line per assignment, "N SENDER-PID KEY=VALUE" (N counts datagrams from 1, SENDER-PID is
the kernel's SCM_CREDENTIALS, which systemd checks against the main PID).  --signal-on sends
SIGNAL (a name such as TERM) to COMMAND once that assignment arrives.  --guard (default 120)
only ends a hang: COMMAND still running then is killed and the exit status is 3.  Otherwise
the exit status is COMMAND's (128 + N for a signal N).
"""
import argparse
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--signal-on", action="append", default=[])
    ap.add_argument("--guard", type=float, default=120.0)
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error("no COMMAND")
    triggers = []
    for spec in args.signal_on:
        assignment, _, name = spec.rpartition(":")
        triggers.append([assignment, getattr(signal, "SIG" + name), False])

    tmp = tempfile.mkdtemp(prefix="notify-listen.")
    path = os.path.join(tmp, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    # as systemd's /run/systemd/notify: any user may send (a service may run as one)
    os.chmod(tmp, 0o711)
    os.chmod(path, 0o777)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    env = dict(os.environ, NOTIFY_SOCKET=path)
    child = subprocess.Popen(cmd, env=env)
    print("child", child.pid, flush=True)

    n = 0
    deadline = time.monotonic() + args.guard
    status = None
    try:
        while True:
            exited = child.poll() is not None
            ready, _, _ = select.select([sock], [], [], 0 if exited else 0.2)
            if not ready:
                if exited:
                    break
                if time.monotonic() > deadline:
                    print("guard: command still running after %g s; killed" % args.guard,
                          file=sys.stderr)
                    child.kill()
                    child.wait()
                    status = 3
                    break
                continue
            data, anc, _, _ = sock.recvmsg(4096, socket.CMSG_SPACE(12))
            pid = 0
            for level, kind, payload in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                    pid = struct.unpack("iII", payload[:12])[0]
            n += 1
            for line in data.decode("utf-8", "replace").split("\n"):
                if not line:
                    continue
                print(n, pid, line, flush=True)
                for t in triggers:
                    if not t[2] and line == t[0] and child.poll() is None:
                        t[2] = True
                        child.send_signal(t[1])
    finally:
        sock.close()
        shutil.rmtree(tmp, ignore_errors=True)
    if status is None:
        rc = child.returncode
        status = 128 - rc if rc < 0 else rc
    return status


if __name__ == "__main__":
    sys.exit(main())
