package server

func Extra() {}
