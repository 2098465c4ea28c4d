"""A small Plurk-like page: the timeline of one user, read from memcached.

Each request gets the user and 30 of their messages from memcached, one get
per key, unpickles them and renders a 5,899-byte HTML page (the page of the
2009 ab write-up). It runs under waitress with pymemcache, as Debian packages
them, and falls back to the standard library (wsgiref with a thread per
request, a minimal memcached client) where those are absent, so that any
Python 3 can serve it.

    python3 app.py --port 8091 --memcached 127.0.0.1:11311
    python3 app.py --version
"""

import argparse
import html
import pickle
import socket
import sys
import threading

PAGE_BYTES = 5899
MESSAGES = 30

try:
    from pymemcache.client.base import PooledClient as _Pooled

    def memcache_client(host, port):
        return _Pooled((host, port), max_pool_size=16), "pymemcache"
except ImportError:
    _Pooled = None

    class _Client:
        """get and set of memcached's text protocol, one connection per thread."""

        def __init__(self, host, port):
            self.addr = (host, port)
            self.local = threading.local()

        def _conn(self):
            c = getattr(self.local, "conn", None)
            if c is None:
                s = socket.create_connection(self.addr)
                c = self.local.conn = (s, s.makefile("rb"))
            return c

        def set(self, key, value):
            s, f = self._conn()
            s.sendall(b"set %s 0 0 %d\r\n%s\r\n" % (key.encode(), len(value), value))
            if f.readline() != b"STORED\r\n":
                raise RuntimeError("memcached did not store " + key)

        def get(self, key):
            s, f = self._conn()
            s.sendall(b"get %s\r\n" % key.encode())
            line = f.readline()
            if line == b"END\r\n":
                return None
            n = int(line.split()[3])
            value = f.read(n + 2)[:-2]
            f.readline()  # END
            return value

    def memcache_client(host, port):
        return _Client(host, port), "stdlib memcached client"


def seed(mc):
    user = {"id": 1, "nick": "amix", "full_name": "Amir Salihefendic", "karma": 81.5}
    mc.set("user:1", pickle.dumps(user))
    for i in range(MESSAGES):
        msg = {
            "id": 1000 + i,
            "owner": 1,
            "qualifier": ["says", "likes", "thinks", "wonders"][i % 4],
            "content": "plurk number %d about benchmarks, %s" % (i, "python " * (i % 5 + 1)),
            "responses": [{"user": j, "text": "re %d" % j} for j in range(i % 4)],
            "posted": 1251331200 + 60 * i,
        }
        mc.set("plurk:%d" % (1000 + i), pickle.dumps(msg))


def render(mc):
    user = pickle.loads(mc.get("user:1"))
    rows = []
    for i in range(MESSAGES):
        m = pickle.loads(mc.get("plurk:%d" % (1000 + i)))
        rows.append(
            '<li id="p%d"><b>%s</b> %s: %s <i>%d responses</i></li>'
            % (m["id"], html.escape(user["nick"]), m["qualifier"], html.escape(m["content"]), len(m["responses"]))
        )
    body = (
        "<!DOCTYPE html>\n<html><head><title>%s's timeline</title></head>\n<body><h1>%s</h1>\n<ul>\n%s\n</ul>\n"
        % (html.escape(user["full_name"]), html.escape(user["full_name"]), "\n".join(rows))
    ).encode()
    tail = b"</body></html>\n"
    pad = PAGE_BYTES - len(body) - len(tail) - len(b"<!--  -->\n")
    if pad < 0:
        raise RuntimeError("page over %d bytes" % PAGE_BYTES)
    return body + b"<!-- " + b"." * pad + b" -->\n" + tail


def make_app(mc):
    def app(environ, start_response):
        page = render(mc)
        start_response("200 OK", [("Content-Type", "text/html"), ("Content-Length", str(len(page)))])
        return [page]

    return app


def serve(app, port):
    try:
        import waitress
    except ImportError:
        waitress = None
    if waitress is not None:
        import logging

        logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # "Task queue depth" at every burst
        waitress.serve(app, host="127.0.0.1", port=port, threads=4, _quiet=True)
        return
    from socketserver import ThreadingMixIn
    from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

    class Server(ThreadingMixIn, WSGIServer):
        daemon_threads = True

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    make_server("127.0.0.1", port, app, server_class=Server, handler_class=Quiet).serve_forever()


def version():
    impl = sys.implementation
    v = "%s %d.%d.%d" % (impl.name, impl.version.major, impl.version.minor, impl.version.micro)
    if impl.name != "cpython":
        v += " (Python %d.%d.%d)" % sys.version_info[:3]
    try:
        import waitress  # noqa: F401
        from importlib.metadata import version as dist_version

        server = "waitress " + dist_version("waitress")
    except Exception:
        server = "wsgiref (stdlib stand-in)"
    client = "pymemcache" if _Pooled is not None else "stdlib memcached client"
    return "%s, %s, %s" % (v, server, client)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=8091)
    ap.add_argument("--memcached", default="127.0.0.1:11311")
    ap.add_argument("--version", action="store_true")
    args = ap.parse_args()
    if args.version:
        print(version())
        return
    host, port = args.memcached.rsplit(":", 1)
    mc, _ = memcache_client(host, int(port))
    seed(mc)
    page = render(mc)
    assert len(page) == PAGE_BYTES, len(page)
    serve(make_app(mc), args.port)


if __name__ == "__main__":
    main()
