// Package sse writes Server-Sent Events: named events with JSON data, keepalives on an
// idle stream, and a process's output coalesced into whole-character `log` events.
package sse

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Output waiting to be sent is flushed at this size, or this long after it arrived.
const (
	CoalesceBytes = 64 * 1024
	coalesceDelay = 2 * time.Millisecond
)

// The two output streams of a run, by index.
const (
	Stdout = 0
	Stderr = 1
)

// LogEvent is the data of a `log` event: a chunk of one output stream.
type LogEvent struct {
	Stream string `json:"stream"`
	Data   string `json:"data"`
}

var StreamNames = [2]string{"stdout", "stderr"}

// sseTap sees every frame a writer sends except keepalives, even after its client is gone,
// so a run's output can reach other readers. id is the frame's event id (0 when the writer
// does not number its events); outputBytes is meaningful when isLog.
type Tap func(frame []byte, id int64, outputBytes int, isLog bool)

// sseFrame is one SSE frame: a named event with JSON data.
func Frame(name string, data any) []byte {
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
//
// Output events hold at most coalesceBytes of output each. The events of one read are
// written to the response together, as they fill up, but pushed to the client only when
// its producer has nothing more ready (drained), when the coalescing delay ends, or with the
// next other event: a fast writer costs one write per read and one flush per burst, not one
// of each per event.
type Writer struct {
	mu        sync.Mutex
	sink      Sink
	closed    bool
	unflushed bool // written to the response since its last flush
	tap       Tap
	numbered  bool  // each event gets an `id:` line (runs: a reader resumes after one)
	lastID    int64 // the id of the last numbered event
	pending   [2][]byte
	buf       []byte
	bufStream int
	// out holds frames not yet written to the response: the events of one read go out in
	// one Write, which net/http makes one HTTP chunk, not one chunk and syscall per event.
	out       []byte
	scheduled bool
	ended     context.Context // ends with end: the keepalive stops
	stop      context.CancelFunc
	// broken is called once when a write fails: the client has gone.
	broken func()
}

// sseSink is where an sseWriter's bytes go: a response, whose writes reach the client when
// flushed, or a bare connection (an upgraded run), where each write does.
type Sink interface {
	Write(p []byte) (int, error)
	Flush() error
}

type responseSink struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (r responseSink) Flush() error { return r.rc.Flush() }

// newSSEWriter answers 200 with an event stream.
func New(w http.ResponseWriter, keepalive time.Duration, broken func()) *Writer {
	h := w.Header()
	h.Set("content-type", "text/event-stream; charset=utf-8")
	h.Set("cache-control", "no-cache")
	h.Set("x-accel-buffering", "no")
	w.WriteHeader(http.StatusOK)
	return Start(responseSink{w, http.NewResponseController(w)}, nil, keepalive, broken)
}

// startSSE sends head (if any) and then events on sink.
func Start(sink Sink, head []byte, keepalive time.Duration, broken func()) *Writer {
	s := &Writer{sink: sink, bufStream: -1, broken: broken}
	s.ended, s.stop = context.WithCancel(context.Background())
	s.out = append(s.out, head...)
	s.writeOut()
	if err := sink.Flush(); err != nil {
		s.closed = true
	}
	go s.keepalive(keepalive)
	return s
}

func (s *Writer) keepalive(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.ended.Done():
			return
		case <-t.C:
			s.mu.Lock()
			s.write([]byte(": keepalive\n\n"))
			s.flushConn()
			s.mu.Unlock()
		}
	}
}

// observe hands every frame sent from now on to tap too.
func (s *Writer) Observe(tap Tap) {
	s.mu.Lock()
	s.tap = tap
	s.mu.Unlock()
}

// number gives every event sent from now on an `id:` line: 1, 2, 3…, so a reader that lost
// its connection can say which it saw last (Last-Event-ID).
func (s *Writer) Number() {
	s.mu.Lock()
	s.numbered = true
	s.mu.Unlock()
}

// appendID appends the next event's `id:` line to dst when the writer numbers its events.
func (s *Writer) appendID(dst []byte) []byte {
	if !s.numbered {
		return dst
	}
	s.lastID++
	dst = append(dst, "id: "...)
	dst = strconv.AppendInt(dst, s.lastID, 10)
	return append(dst, '\n')
}

// event sends a named event after any output queued before it.
func (s *Writer) Event(name string, data any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emit(false)
	s.send(append(s.appendID(nil), Frame(name, data)...), 0, false)
	s.flushConn()
}

// frame sends a frame serialized elsewhere (a replay of another writer's frames).
func (s *Writer) Frame(f []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emit(false)
	s.send(f, 0, false)
	s.flushConn()
}

// output queues a chunk of one stream's bytes; a full event is written at once, and reaches
// the client with the next flush (drained, the coalescing delay, or another event).
func (s *Writer) Output(stream int, chunk []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data := chunk
	if len(s.pending[stream]) > 0 {
		data = append(s.pending[stream], chunk...)
	}
	complete, rest := CompleteUTF8(data)
	s.pending[stream] = append(s.pending[stream][:0:0], rest...)
	if len(complete) == 0 {
		return
	}
	if len(s.buf) > 0 && s.bufStream == stream && len(s.buf)+len(complete) >= CoalesceBytes {
		// Top up what is queued to a full event, send it; the rest as below.
		n := EventEnd(complete, CoalesceBytes-len(s.buf))
		s.buf = append(s.buf, complete[:n]...)
		complete = complete[n:]
		s.emit(false)
	}
	if len(complete) >= CoalesceBytes && len(s.buf) > 0 {
		s.emit(false) // the other stream's queued output goes first
	}
	for len(complete) >= CoalesceBytes {
		// Full events straight from the read, no copy into the queue.
		n := EventEnd(complete, CoalesceBytes)
		s.sendLog(stream, complete[:n])
		complete = complete[n:]
	}
	if len(s.out) >= CoalesceBytes {
		s.writeOut()
	}
	if len(complete) == 0 {
		return
	}
	s.queue(stream, complete)
	if !s.scheduled {
		// A writer that prints a few bytes at a time becomes one event per 2 ms, not per write.
		s.scheduled = true
		time.AfterFunc(coalesceDelay, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.scheduled = false
			s.emit(false)
			s.flushConn()
		})
	}
}

// drained says the producer has nothing more ready for now: what was written goes out.
func (s *Writer) Drained() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushConn()
}

func (s *Writer) queue(stream int, data []byte) {
	if s.bufStream != stream && len(s.buf) > 0 {
		s.emit(false)
	}
	s.bufStream = stream
	s.buf = append(s.buf, data...)
}

// flush sends what is queued, and with final the bytes of an unfinished character too.
func (s *Writer) Flush(final bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.emit(final)
	s.flushConn()
}

// emit writes what is queued as one log event, and with final the bytes of an unfinished
// character too.
func (s *Writer) emit(final bool) {
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
	s.sendLog(s.bufStream, s.buf)
	s.buf = s.buf[:0]
}

func (s *Writer) sendLog(stream int, data []byte) {
	if s.tap != nil {
		// In a slice of its own: the tap keeps it.
		frame := appendLogFrame(s.appendID(make([]byte, 0, len(data)+96)), StreamNames[stream], data)
		s.send(frame, len(data), true)
		return
	}
	if !s.closed {
		s.out = appendLogFrame(s.appendID(s.out), StreamNames[stream], data)
	}
}

func (s *Writer) send(frame []byte, outputBytes int, isLog bool) {
	if s.tap != nil {
		id := int64(0)
		if s.numbered {
			id = s.lastID
		}
		s.tap(frame, id, outputBytes, isLog)
	}
	s.write(frame)
}

// write queues a frame for the response; it reaches the client at the next flushConn.
func (s *Writer) write(b []byte) {
	if !s.closed {
		s.out = append(s.out, b...)
	}
}

// writeOut writes the frames queued so far to the response (not yet to the client).
func (s *Writer) writeOut() {
	if s.closed || len(s.out) == 0 {
		return
	}
	_, err := s.sink.Write(s.out)
	s.out = s.out[:0]
	if err != nil {
		s.fail()
		return
	}
	s.unflushed = true
}

// flushConn pushes what was written to the client.
func (s *Writer) flushConn() {
	s.writeOut()
	if s.closed || !s.unflushed {
		return
	}
	s.unflushed = false
	if err := s.sink.Flush(); err != nil {
		s.fail()
	}
}

func (s *Writer) fail() {
	s.closed = true
	if s.broken != nil {
		go s.broken()
	}
}

// end stops the keepalive; nothing is written after it (the handler then returns).
func (s *Writer) End() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
	}
	s.stop()
}
