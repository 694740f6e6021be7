package server

import "example.com/m/util"

type Base struct{}

func (b *Base) Close() {}

type Server struct {
	Base
}

func (s *Server) Handle() int {
	defer s.Close()
	return helper() + util.Do()
}

func helper() int { return 2 }
