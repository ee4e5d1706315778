package runs

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/svc-dev/svc/sandboxd/internal/sse"
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
	id          int64
	outputBytes int
}

// runLog keeps the SSE frames of one run as its POST stream sent them, so another reader (a
// detached run's, a client that lost its connection, the API while the operator holds an
// install's POST) can replay the run, from its start or after the event id it saw last, and
// follow it to its exit. Bounded: past maxBytes the oldest log frames go, and a replay says
// how much output it lacks; start and exit always stay.
type runLog struct {
	mu       sync.Mutex
	maxBytes int
	// dropEvent: a replay reports dropped output as a `drop` event (invoke, exec); otherwise
	// as a stderr line (install runs, whose readers predate the event).
	dropEvent bool
	kept      []logFrameRec // start, and exit once the run has ended
	logs      []logFrameRec
	head      int // logs before head are dropped
	bytes     int
	dropped   int   // output bytes dropped
	firstDrop int64 // ids of the first and last dropped frames; 0 when none
	lastDrop  int64
	finished  bool
	readers   map[logReader]struct{}
}

func newRunLog(maxBytes int) *runLog {
	return &runLog{maxBytes: maxBytes, readers: map[logReader]struct{}{}}
}

// record is an sseTap: it keeps a frame and passes it to the readers following live.
func (l *runLog) record(frame []byte, id int64, outputBytes int, isLog bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if isLog {
		l.logs = append(l.logs, logFrameRec{frame, id, outputBytes})
	} else {
		l.kept = append(l.kept, logFrameRec{frame: frame, id: id})
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

// size is the bytes of frames the log holds.
func (l *runLog) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bytes
}

// readerCount is the number of readers following the run live.
func (l *runLog) readerCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.readers)
}

// dropEventData is a `drop` event's data: output this replay lacks because the run's buffer
// overflowed (the oldest log events went first).
type dropEventData struct {
	DroppedBytes  int   `json:"droppedBytes"`
	DroppedEvents int64 `json:"droppedEvents"`
}

// attach replays the run to r, the events after id after (0: all of them), then follows it;
// it returns how to stop following.
func (l *runLog) attach(r logReader, after int64) (detach func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.kept) > 0 && (l.kept[0].id > after || l.kept[0].id == 0) {
		r.frame(l.kept[0].frame)
	}
	if l.dropped > 0 && l.lastDrop > after {
		if l.dropEvent {
			from := max(l.firstDrop, after+1)
			frame := append([]byte("id: "+strconv.FormatInt(l.lastDrop, 10)+"\n"),
				sse.Frame("drop", dropEventData{l.dropped, l.lastDrop - from + 1})...)
			r.frame(frame)
		} else {
			notice := fmt.Sprintf("[sandboxd: %d bytes of earlier output dropped]\n", l.dropped)
			r.frame(sse.Frame("log", sse.LogEvent{Stream: "stderr", Data: notice}))
		}
	}
	for _, rec := range l.logs[l.head:] {
		if rec.id > after || rec.id == 0 {
			r.frame(rec.frame)
		}
	}
	if len(l.kept) > 1 && (l.kept[1].id > after || l.kept[1].id == 0) {
		r.frame(l.kept[1].frame)
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
		if l.firstDrop == 0 {
			l.firstDrop = d.id
		}
		l.lastDrop = d.id
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

// pump writes frames to out until the run ends or ctx does.
func (q *queueReader) pump(ctx context.Context, out *sse.Writer) {
	defer context.AfterFunc(ctx, q.end)()
	for {
		q.mu.Lock()
		for len(q.frames) == 0 && !q.ended {
			q.cond.Wait()
		}
		frames, ended := q.frames, q.ended
		q.frames = nil
		q.mu.Unlock()
		for _, f := range frames {
			out.Frame(f)
		}
		if ended {
			out.End()
			return
		}
	}
}
