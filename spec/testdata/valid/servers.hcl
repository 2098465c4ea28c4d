# A web app and the cache it reads, declared in the order they are named:
# the app's command reads the cache's address.
server "cache" {
  command = ["memcached", "-l", "127.0.0.1", "-p", "11211"]
  ready   = "tcp://127.0.0.1:11211"
  version = ["memcached", "-V"]
}

server "app" {
  command    = ["python3", "app.py", "--memcached", server.cache.address]
  ready      = "http://127.0.0.1:8080/"
  depends_on = [server.cache]
}

benchmark "page" {
  op  = "http"
  url = server.app.url
}
