package driver

import (
	"net"
	"net/http"
	"sync"
)

// manifestServer is the loopback server the url command's source polls: it serves whatever the
// current request set, so one server lives for the whole process.
type manifestServer struct {
	url    string
	mu     sync.Mutex
	status int
	body   []byte
}

func startManifestServer() (*manifestServer, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &manifestServer{url: "http://" + listener.Addr().String() + "/manifest"}
	mux := http.NewServeMux()
	mux.HandleFunc("/manifest", func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		status, body := s.status, s.body
		s.mu.Unlock()
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
	go func() { _ = http.Serve(listener, mux) }()
	return s, nil
}

func (s *manifestServer) serve(status int, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.body = status, body
}
