// Package tunnel joins a connection taken over from HTTP (GET /tunnel/{port} with Upgrade:
// tcp) to a port inside the sandbox.
package tunnel

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
)

// tunnelPort is the port of a `/tunnel/{port}` request (1 to 5 digits, as sent), or 0.
func Port(segment string) int {
	if len(segment) < 1 || len(segment) > 5 {
		return 0
	}
	for _, c := range segment {
		if c < '0' || c > '9' {
			return 0
		}
	}
	port, _ := strconv.Atoi(segment)
	if port > 65535 {
		return 0
	}
	return port
}

// openTunnel answers `GET /tunnel/{port}` with `Upgrade: tcp`: after a 101 the connection is
// joined to 127.0.0.1:{port} inside the sandbox. devnode's Services and the dev preview ride it.
func Open(w http.ResponseWriter, port int) {
	conn, buffered, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	upstream, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		fmt.Fprintf(conn, "HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nnothing listens on port %d: %v\n", port, err)
		conn.Close()
		return
	}
	if _, err := io.WriteString(conn, "HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: tcp\r\n\r\n"); err != nil {
		conn.Close()
		upstream.Close()
		return
	}
	// Bytes the client sent after its request that the server already read.
	if n := buffered.Reader.Buffered(); n > 0 {
		head, _ := buffered.Reader.Peek(n)
		if _, err := upstream.Write(head); err != nil {
			conn.Close()
			upstream.Close()
			return
		}
	}
	// Each direction passes its end on (a half close); both are closed once both have ended.
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(upstream, conn)
		halfClose(upstream)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(conn, upstream)
		halfClose(conn)
		done <- struct{}{}
	}()
	<-done
	<-done
	conn.Close()
	upstream.Close()
}

func halfClose(c net.Conn) {
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
	} else {
		_ = c.Close()
	}
}
