package main

// checkCmd is replaced by the real command.
var checkCmd = notYet("check")
