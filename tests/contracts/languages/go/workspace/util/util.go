package util

func Do() int { return 1 }
