package main

// runCmd is replaced by the real command.
var runCmd = notYet("run")
