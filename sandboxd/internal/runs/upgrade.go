package runs

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"time"

	"github.com/svc-dev/svc/sandboxd/internal/sse"
	"github.com/svc-dev/svc/sandboxd/internal/wire"
)

// runUpgrade is what a client names in `Upgrade:` to have `POST /runs` answered on the bare
// connection. After a 101 the connection carries the same SSE bytes as the 200 answer's
// body, without HTTP's chunking around them, until sandboxd closes it after `exit`. The
// request holds the run's stdin whole (its Content-Length at most maxUpgradedBody) and the
// client sends nothing after it: its closing the connection cancels the run. A request that
// does not fit, or a connection that cannot be taken over, gets the 200 answer instead.
//
// Why it exists: a Node reader of an HTTP response copies every chunk of the body into a
// buffer of its own, so a fast run costs the API (and every Node client) twice the memory
// traffic and garbage of reading a socket. The upgraded stream is read straight off the
// socket (kube/sandboxd/client.ts asks for it).
const Upgrade = "svc-run"

// The spec line (at most 1 MiB) and the 16 MiB of stdin the API lets an invoke or exec have.
const maxUpgradedBody = 17 << 20

var upgradedHead = []byte("HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: " + Upgrade +
	"\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-cache\r\n\r\n")

func wantsRunUpgrade(r *http.Request) bool {
	return wire.EqualFold(r.Header.Get("Upgrade"), Upgrade) && r.ContentLength >= 0 && r.ContentLength <= maxUpgradedBody
}

// upgradedRun is a run's stream on a connection taken over from the HTTP server.
type upgradedRun struct {
	sse  *sse.Writer
	conn net.Conn
	// ctx ends when the client has closed its side (or sent what it must not).
	ctx context.Context
}

// upgradeRun switches the request's connection to the run's stream (ok false when it cannot,
// and nothing was written). broken is called when a write to the client fails.
// The connection's context is derived from the request's, whose own no longer watches the
// connection once it is taken over.
func upgradeRun(ctx context.Context, w http.ResponseWriter, keepalive time.Duration, broken func()) (upgradedRun, bool) {
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return upgradedRun{}, false
	}
	ctx, gone := context.WithCancel(ctx)
	go watchGone(rw.Reader, gone)
	return upgradedRun{sse: sse.Start(connSink{conn}, upgradedHead, keepalive, broken), conn: conn, ctx: ctx}, true
}

// watchGone closes gone when a read returns: the client sends nothing after its request, so
// any answer is its end of the connection.
func watchGone(r *bufio.Reader, gone context.CancelFunc) {
	var b [1]byte
	_, _ = r.Read(b[:])
	gone()
}

// close ends the stream: the last event has been written.
func (u upgradedRun) close() {
	u.sse.End()
	_ = u.conn.Close()
}

// connSink writes straight to the connection: nothing to flush.
type connSink struct{ net.Conn }

func (connSink) Flush() error { return nil }
