#!/usr/bin/env python3
"""A stand-in for attrib serve's POST /v1/bundle, for t/epilog-collect.sh.

    epilog-receiver.py DIR [FAIL_FIRST]

Listens on 127.0.0.1 on a free port (written to DIR/port), stores each
request as DIR/req-N.body and DIR/req-N.cred (the X-Attrib-Credential
header) and DIR/req-N.meta (path, content type, status answered).  The
first FAIL_FIRST requests are answered 503, the others 202.  Stops by
itself after 120 s (a test that dies never leaves it behind).
"""
import http.server
import os
import sys
import threading

out = sys.argv[1]
fail_first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
count = 0
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global count
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        with lock:
            count += 1
            n = count
        status = 503 if n <= fail_first else 202
        base = os.path.join(out, "req-%d" % n)
        with open(base + ".body", "wb") as f:
            f.write(body)
        with open(base + ".cred", "w") as f:
            f.write(self.headers.get("X-Attrib-Credential", ""))
        with open(base + ".meta", "w") as f:
            f.write("%s %s %s %d\n" % (self.path, self.headers.get("Content-Type", ""),
                                       status, length))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"status": "%s"}\n' % (b"busy" if status == 503 else b"accepted"))

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(os.path.join(out, "port.tmp"), "w") as f:
    f.write("%d\n" % server.server_address[1])
os.rename(os.path.join(out, "port.tmp"), os.path.join(out, "port"))
threading.Timer(120, server.shutdown).start()
server.serve_forever()
