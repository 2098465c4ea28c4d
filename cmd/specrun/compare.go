package main

// compareCmd is replaced by the real command.
var compareCmd = notYet("compare")
