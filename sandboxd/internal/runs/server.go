// Package runs is what sandboxd runs: install runs, invokes and exec (POST /runs), each in
// its own process group, streamed as SSE and kept readable after (GET /runs/{id}/events),
// under per-kind caps.
package runs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/svc-dev/svc/sandboxd/internal/sse"
	"github.com/svc-dev/svc/sandboxd/internal/wire"
)

// Server serves the runs of one registry.
type Server struct {
	Runs      *Registry
	Keepalive time.Duration // how often an idle stream gets a keepalive comment
}

// StartRun is `POST /runs`: the body's first line is the run's spec, the rest its stdin.
func (s *Server) StartRun(w http.ResponseWriter, r *http.Request) {
	body := bufio.NewReaderSize(r.Body, 64*1024)
	line, err := wire.ReadLine(body, 1024*1024)
	var stdin io.Reader = body
	if errors.Is(err, io.EOF) {
		stdin = eofReader{} // the body was the spec alone
	} else if err != nil {
		line = nil
	}
	spec, perr := parseRunSpec(line)
	if line == nil || perr != nil {
		msg := "not JSON"
		if line != nil {
			msg = perr.Error()
		}
		wire.WriteJSON(w, http.StatusBadRequest, wire.Error("bad_request", "bad run spec: "+msg))
		return
	}
	if spec.Detach {
		s.startDetached(w, spec, stdin)
		return
	}
	upgrade := wantsRunUpgrade(r)
	if upgrade {
		// The upgraded form's stdin is in the request, whole: read before the run is admitted,
		// so a client that goes away meanwhile leaves nothing behind.
		held, err := io.ReadAll(stdin)
		if err != nil {
			return
		}
		stdin = bytes.NewReader(held)
	}
	run, err := s.Runs.admit(spec)
	if refuseRun(w, err) {
		return
	}
	// A client that goes away cancels its run (SIGTERM, then SIGKILL): the run lives as long
	// as its request's context, or the upgraded connection's.
	cancel := func() { s.Runs.cancel(spec.RunID) }
	if upgrade {
		if conn, ok := upgradeRun(r.Context(), w, s.Keepalive, cancel); ok {
			s.Runs.executeWhile(conn.ctx, run, spec, stdin, conn.sse)
			conn.close()
			return
		}
	}
	// The run reads its stdin from the body while its output streams back. Only once admitted:
	// a full-duplex response no longer drains an unread body, which keeps the connection alive.
	_ = http.NewResponseController(w).EnableFullDuplex()
	out := sse.New(w, s.Keepalive, cancel)
	s.Runs.executeWhile(r.Context(), run, spec, &brokenReader{r: stdin, broken: cancel}, out)
}

// refuseRun answers a run admission refused (409 for an id in flight, 429 at the cap); false
// when err is nil.
func refuseRun(w http.ResponseWriter, err error) bool {
	var conflict *runConflict
	var capped *capExceeded
	switch {
	case errors.As(err, &conflict):
		wire.WriteJSON(w, http.StatusConflict, wire.Error("conflict", err.Error()))
		return true
	case errors.As(err, &capped):
		w.Header().Set("retry-after", strconv.Itoa(wire.RetryAfterSeconds))
		wire.WriteJSON(w, http.StatusTooManyRequests, struct {
			Error    string `json:"error"`
			Limit    int    `json:"limit"`
			Inflight int    `json:"inflight"`
			Message  string `json:"message"`
		}{"concurrency_exceeded", capped.limit, capped.inflight, capped.Error()})
		return true
	}
	return err != nil
}

// attachRun replays a run's stream so far (all of it, or the events after the request's
// Last-Event-ID), then follows it to its exit.
// AttachRun is `GET /runs/{id}/events`.
func (s *Server) AttachRun(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("id")
	after, ok := lastEventID(r)
	if !ok {
		wire.WriteJSON(w, http.StatusBadRequest, wire.Error("bad_request", "Last-Event-ID must be an event id: an integer ≥ 0"))
		return
	}
	l, kind := s.Runs.log(runID)
	if l == nil {
		wire.WriteJSON(w, http.StatusNotFound, wire.Error("not_found", "no run "+runID+" in flight or recently finished"))
		return
	}
	w.Header().Set("x-run-kind", kind)
	out := sse.New(w, s.Keepalive, nil)
	q := newQueueReader()
	detach := l.attach(q, after)
	// Unlike the POST's, this reader going away leaves the run alone.
	defer detach()
	q.pump(r.Context(), out)
}

// CancelRun is `POST /runs/{id}/cancel`.
func (s *Server) CancelRun(w http.ResponseWriter, r *http.Request) {
	if s.Runs.cancel(r.PathValue("id")) {
		wire.WriteJSON(w, http.StatusAccepted, map[string]string{"status": "canceling"})
	} else {
		wire.WriteJSON(w, http.StatusNotFound, wire.Error("not_found", "no such run in flight"))
	}
}

// PutLimits is `PUT /limits`: the invoke cap.
func (s *Server) PutLimits(w http.ResponseWriter, r *http.Request) {
	line, err := wire.ReadLine(bufio.NewReader(r.Body), 1024*1024)
	if err != nil && !errors.Is(err, io.EOF) {
		line = nil
	}
	var body struct {
		MaxConcurrentInvokes *float64 `json:"maxConcurrentInvokes"`
	}
	n := 0.0
	if json.Unmarshal(line, &body) == nil && body.MaxConcurrentInvokes != nil {
		n = *body.MaxConcurrentInvokes
	}
	if n < 1 || n != math.Trunc(n) || n > math.MaxInt32 {
		wire.WriteJSON(w, http.StatusBadRequest, wire.Error("bad_request", "maxConcurrentInvokes must be an integer ≥ 1"))
		return
	}
	s.Runs.setCap(kindInvoke, int(n))
	wire.WriteJSON(w, http.StatusOK, map[string]int{"maxConcurrentInvokes": int(n)})
}

type eofReader struct{}

// brokenReader calls broken when reading fails other than at the end: the client has gone
// mid-body.
type brokenReader struct {
	r      io.Reader
	broken func()
}

// ListRuns is `GET /runs`: the runs in flight, and the invoke cap.
func (s *Server) ListRuns(w http.ResponseWriter, _ *http.Request) {
	wire.WriteJSON(w, http.StatusOK, struct {
		Items                []Item `json:"items"`
		MaxConcurrentInvokes int    `json:"maxConcurrentInvokes"`
	}{s.Runs.List(), s.Runs.capOf(kindInvoke)})
}

// ListRecords is `GET /runs?all=true`: every run kept, ended ones too.
func (s *Server) ListRecords(w http.ResponseWriter, _ *http.Request) {
	wire.WriteJSON(w, http.StatusOK, struct {
		Items []runRecord `json:"items"`
	}{s.Runs.records()})
}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

func (b *brokenReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		b.broken()
	}
	return n, err
}
