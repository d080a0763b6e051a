#!/usr/bin/env python3
"""A webhook receiver for t/service-webhook.sh.

    webhook-receiver.py DIR PORT [STATUS]

Listens on 127.0.0.1:PORT (0: any free one; the port is written to
DIR/port once it listens) and stores each POST as DIR/req-N.body and
DIR/req-N.meta ("PATH CONTENT-TYPE X-ATTRIB-JOB STATUS"), N counting on
from the requests already in DIR, so a receiver that is stopped and
started again keeps the numbering.  Answers STATUS (default 200).  Stops
on SIGTERM, or by itself after 300 s (a test that dies never leaves it
behind).
"""
import glob
import http.server
import os
import signal
import sys
import threading

out = sys.argv[1]
port = int(sys.argv[2])
status = int(sys.argv[3]) if len(sys.argv) > 3 else 200
lock = threading.Lock()
count = len(glob.glob(os.path.join(out, "req-*.body")))


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global count
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        with lock:
            count += 1
            base = os.path.join(out, "req-%d" % count)
            with open(base + ".meta", "w") as f:
                f.write("%s %s %s %d\n" % (self.path, self.headers.get("Content-Type", "-"),
                                           self.headers.get("X-Attrib-Job", "-"), status))
            # the body last, atomically: the test waits for it
            with open(base + ".tmp", "wb") as f:
                f.write(body)
            os.rename(base + ".tmp", base + ".body")
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    allow_reuse_address = True


server = Server(("127.0.0.1", port), Handler)
with open(os.path.join(out, "port.tmp"), "w") as f:
    f.write("%d\n" % server.server_address[1])
os.rename(os.path.join(out, "port.tmp"), os.path.join(out, "port"))
signal.signal(signal.SIGTERM, lambda *a: threading.Thread(target=server.shutdown).start())
threading.Timer(300, server.shutdown).start()
server.serve_forever()
os._exit(0)
