package main

// fmtCmd is replaced by the real command.
var fmtCmd = notYet("fmt")
