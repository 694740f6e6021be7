package server

import "testing"

func TestHandle(t *testing.T) {
	s := &Server{}
	s.Handle()
}
