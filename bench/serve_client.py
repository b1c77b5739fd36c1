"""A client of `major serve` (weaver/src/serve.rs) for the benchmarks.

    serve_client.py SOCKET LOG weave ARGS...   # runs `major weave ARGS` there
    serve_client.py SOCKET LOG stop            # stops the server

Prints "wall cpu" in milliseconds: the wall time of the request as this
client sees it (connect, send, answer), and the CPU time the server spent on
it (from the line its log LOG gets per request). The weave's messages go to
standard error; the exit code is the weave's.
"""
import os
import re
import socket
import struct
import sys
import time


def request(path, strings):
    """Sends the strings, returns (exit code, stdout, stderr)."""
    data = struct.pack('>I', len(strings))
    for s in strings:
        b = s.encode()
        data += struct.pack('>I', len(b)) + b
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(path)
        s.sendall(data)
        answer = b''
        while chunk := s.recv(1 << 16):
            answer += chunk
    code, n = struct.unpack('>iI', answer[:8])
    out = answer[8:8 + n]
    (m,) = struct.unpack('>I', answer[8 + n:12 + n])
    err = answer[12 + n:12 + n + m]
    return code, out.decode(), err.decode()


def main():
    path, log, verb, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    strings = ['major-serve/1', verb] + ([os.getcwd(), 'weave'] + args if verb == 'weave' else [])
    seen = os.path.getsize(log)
    t = time.perf_counter()
    code, out, err = request(path, strings)
    wall = (time.perf_counter() - t) * 1000
    sys.stdout.flush()
    sys.stderr.write(out + err)
    cpu = None
    # The server writes its line right after the answer.
    for _ in range(100):
        with open(log) as f:
            f.seek(seen)
            m = re.search(r'-> exit -?\d+ in [0-9.]+ ms \(cpu ([0-9.]+) ms\)', f.read())
        if m:
            cpu = float(m.group(1))
            break
        time.sleep(0.01)
    print(f"{wall:.1f} {cpu if cpu is not None else ''}")
    sys.exit(code)


if __name__ == '__main__':
    main()
