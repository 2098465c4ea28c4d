package main

// validateCmd is replaced by the real command.
var validateCmd = notYet("validate")
