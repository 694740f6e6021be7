// Copyright notice.

//go:build legacy

package util

func legacyDo() int { return 0 }
