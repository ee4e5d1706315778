// Package logs keeps the template process's recent output and serves it (GET /logs), whole
// or followed as SSE.
package logs

import (
	"context"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/svc-dev/svc/sandboxd/internal/sse"
	"github.com/svc-dev/svc/sandboxd/internal/wire"
)

// templateLogBytes is how much of the template process's recent output sandboxd keeps for
// GET /logs: stdout and stderr together, oldest dropped first.
const KeptBytes = 1024 * 1024

// followerQueueBytes bounds what a slow follower of the logs may have waiting; beyond it its
// oldest frames go, and it is told how much it missed.
const followerQueueBytes = 4 * 1024 * 1024

type logChunk struct {
	stream int
	data   []byte
}

// logRing keeps the last max bytes of the template process's output, in the order it was
// written, and hands every new chunk to the followers of GET /logs?follow=true. Chunks end on
// character boundaries (each stream keeps the start of a character until the rest arrives),
// so a replay and a follower both get whole UTF-8.
type Ring struct {
	mu        sync.Mutex
	max       int
	chunks    []logChunk // oldest first
	size      int
	dropped   int64
	pending   [2][]byte
	followers map[*logFollower]struct{}
}

func NewRing(max int) *Ring {
	return &Ring{max: max, followers: map[*logFollower]struct{}{}}
}

// write records a read of one stream.
func (l *Ring) write(stream int, p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	data := append(l.pending[stream], p...)
	complete, rest := sse.CompleteUTF8(data)
	l.pending[stream] = append([]byte(nil), rest...)
	if len(complete) == 0 {
		return
	}
	chunk := logChunk{stream, append([]byte(nil), complete...)}
	l.chunks = append(l.chunks, chunk)
	l.size += len(chunk.data)
	for l.size > l.max && len(l.chunks) > 0 {
		first := &l.chunks[0]
		over := l.size - l.max
		if over >= len(first.data) {
			l.size -= len(first.data)
			l.dropped += int64(len(first.data))
			l.chunks[0] = logChunk{}
			l.chunks = l.chunks[1:]
			continue
		}
		// Cut the oldest chunk on a character boundary: never half a character at the front.
		cut := over
		for cut < len(first.data) && first.data[cut]&0xC0 == 0x80 {
			cut++
		}
		first.data = first.data[cut:]
		l.size -= cut
		l.dropped += int64(cut)
	}
	if len(l.followers) > 0 {
		frame := sse.LogFrame(sse.StreamNames[stream], chunk.data)
		for f := range l.followers {
			f.push(frame)
		}
	}
}

type logEntry struct {
	Stream string `json:"stream"`
	Data   string `json:"data"`
}

type logSnapshot struct {
	Entries      []logEntry `json:"entries"`
	Truncated    bool       `json:"truncated"`
	DroppedBytes int64      `json:"droppedBytes"`
}

// snapshot is the output kept, adjacent chunks of one stream joined.
func (l *Ring) snapshot() logSnapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.snapshotLocked()
}

func (l *Ring) snapshotLocked() logSnapshot {
	out := logSnapshot{Entries: []logEntry{}, Truncated: l.dropped > 0, DroppedBytes: l.dropped}
	var buf []byte
	stream := -1
	flush := func() {
		if len(buf) > 0 {
			out.Entries = append(out.Entries, logEntry{sse.StreamNames[stream], string(buf)})
		}
		buf = buf[:0]
	}
	for _, c := range l.chunks {
		if c.stream != stream {
			flush()
			stream = c.stream
		}
		buf = append(buf, c.data...)
	}
	flush()
	return out
}

// follow replays what is kept to f, then passes it every new chunk until the returned stop.
func (l *Ring) follow(f *logFollower) (stop func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.snapshotLocked().Entries {
		stream := sse.Stdout
		if e.Stream == "stderr" {
			stream = sse.Stderr
		}
		f.push(sse.LogFrame(sse.StreamNames[stream], []byte(e.Data)))
	}
	l.followers[f] = struct{}{}
	return func() {
		l.mu.Lock()
		delete(l.followers, f)
		l.mu.Unlock()
	}
}

// tee copies one stream of the template process to the container's own (what `kubectl logs`
// shows) and into the ring, until the pipe closes.
func (l *Ring) Tee(stream int, from *os.File, to io.Writer) {
	defer from.Close()
	buf := make([]byte, 32*1024)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			_, _ = to.Write(buf[:n])
			l.write(stream, buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// logFollower is one GET /logs?follow=true: its frames wait in a bounded queue written from
// its own goroutine, so a slow reader never holds up the template's output.
type logFollower struct {
	mu      sync.Mutex
	cond    *sync.Cond
	frames  [][]byte
	bytes   int
	missed  int
	stopped bool
}

func newLogFollower() *logFollower {
	f := &logFollower{}
	f.cond = sync.NewCond(&f.mu)
	return f
}

func (f *logFollower) push(frame []byte) {
	f.mu.Lock()
	f.frames = append(f.frames, frame)
	f.bytes += len(frame)
	for f.bytes > followerQueueBytes && len(f.frames) > 1 {
		f.bytes -= len(f.frames[0])
		f.missed += len(f.frames[0])
		f.frames = f.frames[1:]
	}
	f.mu.Unlock()
	f.cond.Signal()
}

func (f *logFollower) stop() {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
	f.cond.Signal()
}

// pump writes the frames to out until ctx ends.
func (f *logFollower) pump(ctx context.Context, out *sse.Writer) {
	defer context.AfterFunc(ctx, f.stop)()
	for {
		f.mu.Lock()
		for len(f.frames) == 0 && !f.stopped {
			f.cond.Wait()
		}
		frames, missed, stopped := f.frames, f.missed, f.stopped
		f.frames, f.bytes, f.missed = nil, 0, 0
		f.mu.Unlock()
		if missed > 0 {
			out.Frame(sse.Frame("log", sse.LogEvent{Stream: "stderr", Data: "[sandboxd: a slow reader missed some output]\n"}))
		}
		for _, fr := range frames {
			out.Frame(fr)
		}
		if stopped {
			out.End()
			return
		}
	}
}

// serveLogs answers GET /logs: the output kept as JSON, or with ?follow=true an SSE stream of
// `log` events, the kept output first, until the client goes. Without a template process
// there is nothing to show, and nothing to follow but keepalives.
// Server serves one ring's output.
type Server struct {
	Ring      *Ring // nil: nothing to show
	Keepalive time.Duration
}

// ServeLogs is `GET /logs`.
func (s *Server) ServeLogs(w http.ResponseWriter, r *http.Request) {
	var ring *Ring
	if s != nil {
		ring = s.Ring
	}
	if ring == nil {
		ring = NewRing(0)
	}
	follow := r.URL.Query().Get("follow")
	if follow != "" && follow != "true" && follow != "false" {
		wire.WriteJSON(w, http.StatusBadRequest, wire.Error("bad_request", "follow must be true or false"))
		return
	}
	if follow != "true" {
		wire.WriteJSON(w, http.StatusOK, ring.snapshot())
		return
	}
	out := sse.New(w, s.Keepalive, nil)
	f := newLogFollower()
	stop := ring.follow(f)
	defer stop()
	f.pump(r.Context(), out)
}
