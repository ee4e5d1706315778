// Package activity says whether the sandbox is in use (GET /activity) and what it uses
// (GET /usage): requests in flight, runs alive, terminals open, the Pod's CPU and memory.
package activity

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/svc-dev/svc/sandboxd/internal/runs"
	"github.com/svc-dev/svc/sandboxd/internal/terminal"
	"github.com/svc-dev/svc/sandboxd/internal/wire"
)

// cpuWindow is how long the CPU must stay above a threshold to count as activity.
const cpuWindow = 10 * time.Second

// Watched counts sandboxd's use: every request but the monitoring ones (health, usage,
// activity, the runs list) is activity while in flight. Runs and terminals are read from
// their own registries, so none of them needs to know of this.
type Watched struct {
	m         *Meter
	runs      *runs.Registry
	terminals *terminal.Terminals // nil: none

	mu         sync.Mutex
	inflight   int
	lastActive time.Time // when activity was last seen: a request's end, a sample while busy
}

// New watches the runs of registry and the sessions of terminals, with m's samples.
func New(m *Meter, registry *runs.Registry, terminals *terminal.Terminals) *Watched {
	return &Watched{m: m, runs: registry, terminals: terminals, lastActive: time.Now()}
}

// Wrap counts the requests next serves.
func (w *Watched) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if monitoring(r) {
			next.ServeHTTP(rw, r)
			return
		}
		w.mu.Lock()
		w.inflight++
		w.mu.Unlock()
		defer func() {
			w.mu.Lock()
			w.inflight--
			w.lastActive = time.Now()
			w.mu.Unlock()
		}()
		next.ServeHTTP(rw, r)
	})
}

// monitoring is a request that reads how the sandbox fares: no use of it.
func monitoring(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	switch r.URL.Path {
	case "/healthz", "/runs":
		return true
	case "/usage", "/activity":
		return r.Header.Get("Upgrade") == ""
	}
	return false
}

// openRuns counts the runs alive by kind (configure's install runs as "configure").
func (w *Watched) openRuns() map[string]int {
	out := map[string]int{"exec": 0, "invoke": 0, "configure": 0}
	for _, r := range w.runs.List() {
		if r.Kind == runs.KindInstall {
			out["configure"]++
		} else {
			out[r.Kind]++
		}
	}
	return out
}

func (w *Watched) openTerminals() int { return w.terminals.Count() }

// busy is why the sandbox is active now, without the CPU (see activityNow).
func (w *Watched) busy() []string {
	reasons := []string{}
	w.mu.Lock()
	inflight := w.inflight
	w.mu.Unlock()
	if inflight > 0 {
		reasons = append(reasons, "request")
	}
	runs := w.openRuns()
	for _, k := range []string{"exec", "invoke", "configure"} {
		if runs[k] > 0 {
			reasons = append(reasons, k)
		}
	}
	if w.openTerminals() > 0 {
		reasons = append(reasons, "terminal")
	}
	return reasons
}

// watch notes activity at every sample while busy, so a run's or a terminal's end is known
// to within a sample period without the run registry telling anyone.
func (w *Watched) Watch(ctx context.Context) {
	t := time.NewTicker(w.m.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if len(w.busy()) > 0 {
				w.mu.Lock()
				w.lastActive = now
				w.mu.Unlock()
			}
		}
	}
}

type activityReport struct {
	Active       bool      `json:"active"`
	Reasons      []string  `json:"reasons"`
	LastActiveAt time.Time `json:"lastActiveAt"`
}

// activityNow: active when a request is in flight, a run alive, a terminal open, or (with a
// threshold above 0) the CPU above `cpuThreshold` cores over the last cpuWindow. The last
// activity is now when active, else when it was last seen (CPU above the threshold in the
// kept history counts).
func (w *Watched) activityNow(cpuThreshold float64, now time.Time) activityReport {
	reasons := w.busy()
	w.mu.Lock()
	last := w.lastActive
	w.mu.Unlock()
	if cpuThreshold > 0 {
		recent := w.m.since(cpuWindow, now)
		sum := 0.0
		for _, s := range recent {
			sum += s.CPUCores
		}
		if len(recent) > 0 && sum/float64(len(recent)) >= cpuThreshold {
			reasons = append(reasons, "cpu")
		}
		for _, s := range w.m.since(usageHistory, now) {
			if s.CPUCores >= cpuThreshold && s.At.After(last) {
				last = s.At
			}
		}
	}
	if len(reasons) > 0 {
		last = now
	}
	return activityReport{Active: len(reasons) > 0, Reasons: reasons, LastActiveAt: last.UTC()}
}

// ServeActivity is `GET /activity`.
func (w *Watched) ServeActivity(rw http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	threshold := 0.0
	if v := q.Get("cpuThreshold"); v != "" {
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || t < 0 {
			wire.WriteJSON(rw, http.StatusBadRequest, wire.Error("bad_request", "cpuThreshold must be a number of cores, 0 or more"))
			return
		}
		threshold = t
	}
	wire.WriteJSON(rw, http.StatusOK, w.activityNow(threshold, time.Now()))
}

type usageReport struct {
	At  time.Time `json:"at"`
	CPU struct {
		Cores            float64  `json:"cores"`
		ThrottledSeconds float64  `json:"throttledSeconds"`
		LimitCores       *float64 `json:"limitCores"`
	} `json:"cpu"`
	Memory struct {
		WorkingSetBytes uint64  `json:"workingSetBytes"`
		LimitBytes      *uint64 `json:"limitBytes"`
	} `json:"memory"`
	Workspace struct {
		UsedBytes  uint64 `json:"usedBytes"`
		FreeBytes  uint64 `json:"freeBytes"`
		TotalBytes uint64 `json:"totalBytes"`
	} `json:"workspace"`
	Processes int            `json:"processes"`
	Runs      map[string]int `json:"runs"`
	Terminals int            `json:"terminals"`
	// Whether the Pod's cgroup could be read (false: CPU and memory figures are 0).
	Cgroup  bool          `json:"cgroup"`
	History []usageSample `json:"history,omitempty"`
}

// serveUsage answers the current figures; `?history=S` adds the samples of the last S seconds.
// ServeUsage is `GET /usage`.
func (w *Watched) ServeUsage(rw http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	now := time.Now()
	s := w.m.latest()
	var u usageReport
	u.At = now.UTC()
	u.CPU.Cores = s.CPUCores
	u.CPU.ThrottledSeconds = float64(s.throttledNanos) / 1e9
	if s.cpuLimit > 0 {
		l := s.cpuLimit
		u.CPU.LimitCores = &l
	}
	u.Memory.WorkingSetBytes = s.MemoryBytes
	if s.memoryLimit > 0 {
		l := s.memoryLimit
		u.Memory.LimitBytes = &l
	}
	u.Workspace.UsedBytes, u.Workspace.FreeBytes, u.Workspace.TotalBytes = w.m.workspaceUsage(now)
	u.Processes = processCount()
	u.Runs = w.openRuns()
	u.Terminals = w.openTerminals()
	u.Cgroup = s.cgroupOK
	if v := q.Get("history"); v != "" {
		secs, err := strconv.Atoi(v)
		if err != nil || secs < 0 {
			wire.WriteJSON(rw, http.StatusBadRequest, wire.Error("bad_request", "history must be a whole number of seconds"))
			return
		}
		u.History = w.m.since(time.Duration(secs)*time.Second, now)
	}
	wire.WriteJSON(rw, http.StatusOK, u)
}
