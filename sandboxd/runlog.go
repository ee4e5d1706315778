package main

import (
	"fmt"
	"sync"
)

// logReader is where a reader of a run log gets its frames: the replay first, then live
// ones. Its methods are called with the log's lock held and must not block.
type logReader interface {
	frame(f []byte)
	// end: the run's exit frame has been sent.
	end()
}

type logFrameRec struct {
	frame       []byte
	outputBytes int
}

// runLog keeps the SSE frames of one install run as its POST stream sent them, so a second
// reader (the API, while the operator holds the POST) can replay the run from its start and
// follow it to its exit. Bounded: past maxBytes the oldest log frames go, and a replay says
// how much output it lacks; start and exit always stay.
type runLog struct {
	mu       sync.Mutex
	maxBytes int
	kept     [][]byte // start, and exit once the run has ended
	logs     []logFrameRec
	head     int // logs before head are dropped
	bytes    int
	dropped  int
	finished bool
	readers  map[logReader]struct{}
}

func newRunLog(maxBytes int) *runLog {
	return &runLog{maxBytes: maxBytes, readers: map[logReader]struct{}{}}
}

// record is an sseTap: it keeps a frame and passes it to the readers following live.
func (l *runLog) record(frame []byte, outputBytes int, isLog bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if isLog {
		l.logs = append(l.logs, logFrameRec{frame, outputBytes})
	} else {
		l.kept = append(l.kept, frame)
	}
	l.bytes += len(frame)
	l.trim()
	for r := range l.readers {
		r.frame(frame)
	}
}

// finish marks the run ended (after its exit frame) and ends every reader.
func (l *runLog) finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.finished = true
	for r := range l.readers {
		r.end()
	}
	clear(l.readers)
}

// readerCount is the number of readers following the run live.
func (l *runLog) readerCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.readers)
}

// attach replays the run to r, then follows it; it returns how to stop following.
func (l *runLog) attach(r logReader) (detach func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.kept) > 0 {
		r.frame(l.kept[0])
	}
	if l.dropped > 0 {
		notice := fmt.Sprintf("[sandboxd: %d bytes of earlier output dropped]\n", l.dropped)
		r.frame(sseFrame("log", logEvent{Stream: "stderr", Data: notice}))
	}
	for _, rec := range l.logs[l.head:] {
		r.frame(rec.frame)
	}
	if len(l.kept) > 1 {
		r.frame(l.kept[1])
	}
	if l.finished {
		r.end()
		return func() {}
	}
	l.readers[r] = struct{}{}
	return func() {
		l.mu.Lock()
		delete(l.readers, r)
		l.mu.Unlock()
	}
}

func (l *runLog) trim() {
	for l.bytes > l.maxBytes && l.head < len(l.logs) {
		d := l.logs[l.head]
		l.logs[l.head] = logFrameRec{} // let the bytes go now, not at the next compaction
		l.head++
		l.bytes -= len(d.frame)
		l.dropped += d.outputBytes
	}
	// Compact once the dropped prefix is most of the slice: amortized O(1) per frame.
	if l.head > 1024 && l.head*2 > len(l.logs) {
		l.logs = append([]logFrameRec(nil), l.logs[l.head:]...)
		l.head = 0
	}
}

// queueReader is a logReader that writes to an SSE response from its own goroutine, so a
// slow reader never holds up the run (its frames are bounded by the log's size).
type queueReader struct {
	mu     sync.Mutex
	cond   *sync.Cond
	frames [][]byte
	ended  bool
}

func newQueueReader() *queueReader {
	q := &queueReader{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *queueReader) frame(f []byte) {
	q.mu.Lock()
	q.frames = append(q.frames, f)
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *queueReader) end() {
	q.mu.Lock()
	q.ended = true
	q.mu.Unlock()
	q.cond.Signal()
}

// pump writes frames to sse until the run ends or stop is closed.
func (q *queueReader) pump(sse *sseWriter, stop <-chan struct{}) {
	go func() {
		<-stop
		q.end()
	}()
	for {
		q.mu.Lock()
		for len(q.frames) == 0 && !q.ended {
			q.cond.Wait()
		}
		frames, ended := q.frames, q.ended
		q.frames = nil
		q.mu.Unlock()
		for _, f := range frames {
			sse.frame(f)
		}
		if ended {
			sse.end()
			return
		}
	}
}
