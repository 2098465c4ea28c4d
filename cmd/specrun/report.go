package main

// reportCmd is replaced by the real command.
var reportCmd = notYet("report")
