package runs

import (
	"sort"
	"time"
)

// keepSettings bound what sandboxd keeps of runs: each run's events (its buffer), and how
// long and how many ended runs stay readable. Install runs keep their own rule: the
// finishedLogsKept most recent, however old.
type Keep struct {
	BufferBytes int           // per run: past it the oldest log events go
	Retention   time.Duration // an ended invoke or exec stays readable this long
	MaxFinished int           // and at most this many ended invokes and execs are kept
	// totalBytes bounds the buffers of ended invokes and execs together: the oldest go
	// first, so many runs with large outputs cannot fill the sandbox's memory.
	TotalBytes int
}

var DefaultKeep = Keep{
	BufferBytes: 8 * 1024 * 1024,
	Retention:   15 * time.Minute,
	MaxFinished: 64,
	TotalBytes:  64 * 1024 * 1024,
}

// setKeep replaces the keep settings (sandboxd's --run-buffer-bytes and
// --run-retention-seconds); runs admitted from now on get the new buffer size.
func (g *Registry) SetKeep(k Keep) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.keep = k
}

// keepLocked adds an ended run to the ones kept readable, forgetting what falls outside the
// bounds. Called with g.mu held.
func (g *Registry) keepLocked(r *run) {
	kept := g.finished[:0]
	for _, f := range g.finished {
		if f.id != r.id { // a rerun of the same id becomes the newest
			kept = append(kept, f)
		}
	}
	g.finished = append(kept, r)
	g.trimFinishedLocked(time.Now())
	if r.kind != KindInstall {
		time.AfterFunc(g.keep.Retention, func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.trimFinishedLocked(time.Now())
		})
	}
}

// trimFinishedLocked forgets ended runs past their retention or the count and byte bounds,
// oldest first.
func (g *Registry) trimFinishedLocked(now time.Time) {
	installs, others, bytes := 0, 0, 0
	keep := make([]bool, len(g.finished))
	for i := len(g.finished) - 1; i >= 0; i-- { // newest first
		r := g.finished[i]
		if r.kind == KindInstall {
			installs++
			keep[i] = installs <= finishedLogsKept
			continue
		}
		others++
		bytes += r.log.size()
		keep[i] = others <= g.keep.MaxFinished && bytes <= g.keep.TotalBytes &&
			now.Sub(r.endedAt) < g.keep.Retention
	}
	kept := g.finished[:0]
	for i, r := range g.finished {
		if keep[i] {
			kept = append(kept, r)
		}
	}
	clear(g.finished[len(kept):]) // let the forgotten runs' buffers go
	g.finished = kept
}

// runRecord is one run as GET /runs?all=true lists it: in flight, or ended and still kept.
type runRecord struct {
	RunID      string `json:"runId"`
	Kind       string `json:"kind"`
	State      string `json:"state"` // running | exited
	StartedAt  string `json:"startedAt"`
	Detached   bool   `json:"detached"`
	ExitCode   *int   `json:"exitCode"`
	DurationMs *int64 `json:"durationMs"`
	Reason     string `json:"reason,omitempty"`
	EndedAt    string `json:"endedAt,omitempty"`
}

// records lists the runs in flight and the ended ones kept, oldest first.
func (g *Registry) records() []runRecord {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.trimFinishedLocked(time.Now())
	all := make([]*run, 0, len(g.runs)+len(g.finished))
	for _, r := range g.runs {
		all = append(all, r)
	}
	all = append(all, g.finished...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].startedAt.Before(all[j].startedAt) })
	out := make([]runRecord, 0, len(all))
	for _, r := range all {
		rec := runRecord{RunID: r.id, Kind: r.kind, State: "running", StartedAt: isoMillis(r.startedAt), Detached: r.detached}
		if r.exit != nil {
			code, ms := r.exit.ExitCode, r.exit.DurationMs
			rec.State, rec.ExitCode, rec.DurationMs, rec.Reason = "exited", &code, &ms, r.exit.Reason
			rec.EndedAt = isoMillis(r.endedAt)
		}
		out = append(out, rec)
	}
	return out
}
