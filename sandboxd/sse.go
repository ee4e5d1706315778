package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// Output waiting to be sent is flushed at this size, or this long after it arrived.
const (
	coalesceBytes = 64 * 1024
	coalesceDelay = 2 * time.Millisecond
)

// The two output streams of a run, by index.
const (
	stdout = 0
	stderr = 1
)

var streamNames = [2]string{"stdout", "stderr"}

// sseTap sees every frame a writer sends except keepalives, even after its client is gone,
// so a run's output can reach other readers. outputBytes is meaningful when isLog.
type sseTap func(frame []byte, outputBytes int, isLog bool)

// sseFrame is one SSE frame: a named event with JSON data.
func sseFrame(name string, data any) []byte {
	var b bytes.Buffer
	b.WriteString("event: " + name + "\ndata: ")
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the bytes JSON.stringify gives
	_ = enc.Encode(data)
	b.Truncate(b.Len() - 1) // Encode's newline
	b.WriteString("\n\n")
	return b.Bytes()
}

// sseWriter sends Server-Sent Events on a response: named events with JSON data, a keepalive
// comment on an idle stream, and process output coalesced per stream so a fast writer does not
// become one event per write. Each stream keeps the tail of a character that has not fully
// arrived, so a character split across two reads is sent whole. Safe for concurrent use; a
// slow client blocks the caller, which is how a run's output is paced.
type sseWriter struct {
	mu        sync.Mutex
	w         http.ResponseWriter
	rc        *http.ResponseController
	closed    bool
	tap       sseTap
	pending   [2][]byte
	buf       []byte
	bufStream int
	scheduled bool
	stop      chan struct{}
	// broken is called once when a write fails: the client has gone.
	broken func()
}

func newSSEWriter(w http.ResponseWriter, keepalive time.Duration, broken func()) *sseWriter {
	s := &sseWriter{w: w, rc: http.NewResponseController(w), bufStream: -1, stop: make(chan struct{}), broken: broken}
	h := w.Header()
	h.Set("content-type", "text/event-stream; charset=utf-8")
	h.Set("cache-control", "no-cache")
	h.Set("x-accel-buffering", "no")
	w.WriteHeader(http.StatusOK)
	if err := s.rc.Flush(); err != nil {
		s.closed = true
	}
	go s.keepalive(keepalive)
	return s
}

func (s *sseWriter) keepalive(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			s.write([]byte(": keepalive\n\n"))
			s.mu.Unlock()
		}
	}
}

// observe hands every frame sent from now on to tap too.
func (s *sseWriter) observe(tap sseTap) {
	s.mu.Lock()
	s.tap = tap
	s.mu.Unlock()
}

// event sends a named event after any output queued before it.
func (s *sseWriter) event(name string, data any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked(false)
	s.send(sseFrame(name, data), 0, false)
}

// frame sends a frame serialized elsewhere (a replay of another writer's frames).
func (s *sseWriter) frame(f []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked(false)
	s.send(f, 0, false)
}

// output queues a chunk of one stream's bytes.
func (s *sseWriter) output(stream int, chunk []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data := chunk
	if len(s.pending[stream]) > 0 {
		data = append(s.pending[stream], chunk...)
	}
	complete, rest := completeUTF8(data)
	s.pending[stream] = append([]byte(nil), rest...)
	if len(complete) == 0 {
		return
	}
	s.queue(stream, complete)
	if len(s.buf) >= coalesceBytes {
		s.flushLocked(false)
		return
	}
	if !s.scheduled {
		// A writer that prints a few bytes at a time becomes one event per 2 ms, not per write.
		s.scheduled = true
		time.AfterFunc(coalesceDelay, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.scheduled = false
			s.flushLocked(false)
		})
	}
}

func (s *sseWriter) queue(stream int, data []byte) {
	if s.bufStream != stream && len(s.buf) > 0 {
		s.flushLocked(false)
	}
	s.bufStream = stream
	s.buf = append(s.buf, data...)
}

// flush sends what is queued, and with final the bytes of an unfinished character too.
func (s *sseWriter) flush(final bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked(final)
}

func (s *sseWriter) flushLocked(final bool) {
	if final {
		for stream := range s.pending {
			if rest := s.pending[stream]; len(rest) > 0 {
				s.pending[stream] = nil
				s.queue(stream, rest)
			}
		}
	}
	if len(s.buf) == 0 {
		return
	}
	frame := logFrame(streamNames[s.bufStream], s.buf)
	n := len(s.buf)
	s.buf = s.buf[:0]
	s.send(frame, n, true)
}

func (s *sseWriter) send(frame []byte, outputBytes int, isLog bool) {
	if s.tap != nil {
		s.tap(frame, outputBytes, isLog)
	}
	s.write(frame)
}

func (s *sseWriter) write(b []byte) {
	if s.closed {
		return
	}
	_, err := s.w.Write(b)
	if err == nil {
		err = s.rc.Flush()
	}
	if err != nil {
		s.closed = true
		if s.broken != nil {
			go s.broken()
		}
	}
}

// end stops the keepalive; nothing is written after it (the handler then returns).
func (s *sseWriter) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
	}
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
}
