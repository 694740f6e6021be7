package util

// built on Windows only: the _windows suffix is a build constraint
func platform() string { return "windows" }
