"""Slow clients for `mdmconf serve` (issue 7): N connections that each send a request line and then one header
line every PAUSE seconds, never finishing. Prints how many the server closed and after how long.

    python3 Tests/Load/slowloris.py PORT [CONNECTIONS] [PAUSE] [LIMIT_SECONDS]
"""
import socket
import sys
import time

port = int(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 500
pause = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
limit = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0

started = time.monotonic()
sockets = []
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    s.setblocking(False)
    sockets.append(s)
print(f"opened {len(sockets)} slow connections", flush=True)

closed_at = {}
n = 0
while len(closed_at) < len(sockets) and time.monotonic() - started < limit:
    time.sleep(pause)
    n += 1
    for index, s in enumerate(sockets):
        if index in closed_at:
            continue
        try:
            s.send(f"X-Slow-{n}: {n}\r\n".encode())
            data = s.recv(1024)
            if data == b"":
                closed_at[index] = time.monotonic() - started
        except BlockingIOError:
            pass
        except OSError:
            closed_at[index] = time.monotonic() - started

times = sorted(closed_at.values())
if times:
    print(f"server closed {len(times)} of {len(sockets)}: first after {times[0]:.1f} s, last after {times[-1]:.1f} s")
else:
    print(f"server closed 0 of {len(sockets)} within {limit:.0f} s")
sys.exit(0 if len(times) == len(sockets) else 1)
