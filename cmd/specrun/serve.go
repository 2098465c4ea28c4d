package main

// serveCmd is replaced by the real command.
var serveCmd = notYet("serve")
