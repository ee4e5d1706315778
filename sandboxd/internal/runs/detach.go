package runs

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/svc-dev/svc/sandboxd/internal/sse"
	"github.com/svc-dev/svc/sandboxd/internal/wire"
)

// startDetached runs a spec with `"detach": true`: its stdin is the rest of the body, read
// whole before the run is admitted (a client that goes away meanwhile leaves nothing
// behind); the answer is 202 at once, and the run goes on with no client, to its exit or its
// timeout. It holds its slot under the cap like any run. Its events are kept as every run's
// are (GET /runs/{id}/events); cancel ends it as it ends any run.
func (s *Server) startDetached(w http.ResponseWriter, spec runSpec, stdin io.Reader) {
	held, err := io.ReadAll(stdin)
	if err != nil {
		return
	}
	run, err := s.Runs.admit(spec)
	if refuseRun(w, err) {
		return
	}
	// No client reads the stream: a sink that takes every byte, and a keepalive as rare
	// as it may be (nobody hears it).
	out := sse.Start(discardSink{}, nil, 1<<62, nil)
	go s.Runs.execute(run, spec, bytes.NewReader(held), out)
	wire.WriteJSON(w, http.StatusAccepted, struct {
		RunID    string `json:"runId"`
		Detached bool   `json:"detached"`
	}{run.id, true})
}

// discardSink is the response of a detached run: nobody reads it.
type discardSink struct{}

func (discardSink) Write(p []byte) (int, error) { return len(p), nil }
func (discardSink) Flush() error                { return nil }

// lastEventID is the id a reader saw last (the Last-Event-ID header, as an EventSource sends
// it on reconnecting): 0 without one. false: not an event id.
func lastEventID(r *http.Request) (int64, bool) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		return 0, true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && n >= 0
}
