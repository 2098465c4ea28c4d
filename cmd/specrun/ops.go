package main

// opsCmd is replaced by the real command.
var opsCmd = notYet("ops")
